/// A sink that writes a snapshot for some events: the pipeline's snapshot stage asks it once per
/// event, before the event's line is made, so the line can name the file (`snapshot`); the
/// picture then travels with the event (`EmittedEvent.snapshotPicture`) to every sink that shows it.
public protocol SnapshotNaming: AnyObject, Sendable {
    /// `event`'s snapshot, decided on `frame` with its `objects`: the picture, and the file's name
    /// when a file will be written for it (nil while the folder fails or the writer is busy); nil
    /// when the event takes no snapshot.
    func snapshot(for event: DetectionEvent, frame: AnalysedFrame, objects: [MetadataObject]) -> (name: String?, picture: SnapshotPicture)?
}
