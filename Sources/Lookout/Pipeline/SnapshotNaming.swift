/// A sink that writes a snapshot for some events: the pipeline asks it for the file name before
/// making the event's line, so the line can name the file (`snapshot`).
public protocol SnapshotNaming: AnyObject, Sendable {
    /// The file name for `event`'s snapshot, decided on `frame`; nil for no snapshot.
    func snapshotName(for event: DetectionEvent, frame: AnalysedFrame) -> String?
}
