/// The events a snapshot is taken for (`snapshot-on`): a code read, a face entering, presence
/// turning on (the camera's or a zone's).
public enum SnapshotTrigger: String, Sendable, CaseIterable {
    case code
    case faceEnter = "face_enter"
    case presence
}
