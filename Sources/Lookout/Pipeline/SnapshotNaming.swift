/// A sink that writes a snapshot for some events: the pipeline's snapshot stage asks it for the
/// file name before making the event's line, so the line can name the file (`snapshot`), and for
/// the picture, which every sink then gets with the event.
public protocol SnapshotNaming: AnyObject, Sendable {
    /// The file name for `event`'s snapshot, decided on `frame`; nil for no snapshot.
    func snapshotName(for event: DetectionEvent, frame: AnalysedFrame) -> String?
    /// The picture of `event`'s snapshot, decided on `frame` with its `objects`; nil for none.
    /// It travels with the event (`EmittedEvent.snapshotPicture`) to every sink that shows it.
    func snapshotPicture(for event: DetectionEvent, frame: AnalysedFrame, objects: [MetadataObject]) -> SnapshotPicture?
}
