/// The timing rules that turn detections into events. Defaults follow the brief and the
/// peers (reference-semantics.md): one read per code, presence with hysteresis.
public struct EventSettings: Sendable, Equatable {
    /// A code that left the view is not reported again until it has been gone this long.
    public var dedupeWindow = MediaTime(seconds: 2)
    /// Presence turns on after this many analyses with a face...
    public var presenceOnCount = 2
    /// ...all within this window.
    public var presenceOnWindow = MediaTime(seconds: 1)
    /// Presence turns off only after this long without a face.
    public var presenceOffDelay = MediaTime(seconds: 5)
    /// A face not seen for this long has left (use the face detector's track retention, so that
    /// a face found again after leaving gets a new ID).
    public var faceLeaveDelay = MediaTime(seconds: 1)

    public init() {}
}
