/// A clip written by `ClipRecorder` (`--record`), as its `recording` or `recording_failed` line
/// tells it: the file, what it holds, and the event that caused it.
public struct RecordingReport: Sendable {
    /// The file's name in the recording directory.
    public var file: String
    public var movie: RecordedMovie
    public var trigger: RecordingTrigger
    /// Why the recording failed (`recording_failed` only).
    public var error: RecordingError?

    public init(file: String, movie: RecordedMovie, trigger: RecordingTrigger, error: RecordingError? = nil) {
        self.file = file
        self.movie = movie
        self.trigger = trigger
        self.error = error
    }

    /// The clip's last frame (or, for a clip that never started, the triggering frame): the
    /// frame fields of the line.
    public var frame: AnalysedFrame {
        guard movie.frameCount > 0 else { return trigger.frame }
        return AnalysedFrame(sequence: movie.lastSequence, presentationTime: movie.lastPresentationTime,
                             wallClockTime: movie.lastWallClockTime, width: movie.width, height: movie.height)
    }
}

/// What made a clip: the first event of it, and how many events it covers.
public struct RecordingTrigger: Sendable {
    /// `presence`, `code`, or `always` (continuous segments).
    public var kind: String
    /// The frame of the first event (for `always`, the first frame seen).
    public var frame: AnalysedFrame
    /// The id of the event that began the clip (`EmittedEvent.id`); nil for `always`.
    public var id: String?
    /// For a code clip, the first code's type and text.
    public var codeType: MetadataObjectType?
    public var codeValue: String?
    /// Events the clip covers (presence sessions joined by their post-roll, codes read within it).
    public var events = 1

    public init(kind: String, frame: AnalysedFrame, id: String? = nil, codeType: MetadataObjectType? = nil, codeValue: String? = nil) {
        self.kind = kind
        self.frame = frame
        self.id = id
        self.codeType = codeType
        self.codeValue = codeValue
    }
}
