/// Hears when a `MovieFileOutput` starts and finishes a file (AVCaptureFileOutputRecordingDelegate).
/// Both calls come on the output's own serial queue, in order.
public protocol FileOutputRecordingDelegate: AnyObject, Sendable {
    /// The file exists and its first frame, presented at `startTime`, is written.
    func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String, startTime: MediaTime)
    /// The file is complete (or, with `error`, as complete as it could be made): `movie` says what
    /// it holds and why it ended. Called once for every `startRecording`, even one that failed at once.
    func fileOutput(_ output: MovieFileOutput, didFinishRecordingTo path: String, movie: RecordedMovie, error: RecordingError?)
}

extension FileOutputRecordingDelegate {
    public func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String, startTime: MediaTime) {}
}

/// Why a recording ended.
public enum RecordingEndReason: String, Sendable {
    /// `stopRecording()`, a scheduled end reached, or a new `startRecording` taking over.
    case stopped
    /// `maxRecordedDuration` reached.
    case maximumDuration = "max_duration"
    /// `maxRecordedFileSize` reached.
    case maximumFileSize = "max_size"
    /// The camera stopped delivering frames.
    case cameraLost = "camera_lost"
    /// The session stopped running (SIGINT, the end of a file).
    case sessionStopped = "session_stopped"
    /// Writing failed (the error says why).
    case failed
}

/// What a finished recording holds.
public struct RecordedMovie: Sendable, Equatable {
    public var path: String
    public var reason: RecordingEndReason
    /// Frames in the file.
    public var frameCount = 0
    /// The file's size in bytes.
    public var fileSize: Int64 = 0
    /// The first and last frames' presentation times on the stream's clock (zero when empty).
    public var firstPresentationTime = MediaTime.zero
    public var lastPresentationTime = MediaTime.zero
    /// From the first frame to the end of the last one.
    public var duration = MediaTime.zero
    /// The first and last frames' sequence numbers and the last one's wall-clock time.
    public var firstSequence: UInt64 = 0
    public var lastSequence: UInt64 = 0
    public var lastWallClockTime = WallClockTime(seconds: 0, nanoseconds: 0)
    public var width = 0
    public var height = 0
    /// Frames of the span that are not in the file: pushed out of the frame ring before they were
    /// written (a disk slower than the camera), or raw frames that could not be compressed in time.
    public var framesLost = 0

    public init(path: String, reason: RecordingEndReason) {
        self.path = path
        self.reason = reason
    }
}
