/// When and what a metadata output analysed: the timing of one frame, without its pixels.
///
/// Delegates that turn detections into state (presence, de-duplication) need the clock to move
/// on frames where nothing was found, too.
public struct AnalysedFrame: Sendable, Equatable {
    public var sequence: UInt64
    public var presentationTime: MediaTime
    public var wallClockTime: WallClockTime
    public var width: Int
    public var height: Int
    /// When Lookout received the frame (MonotonicClock nanoseconds).
    public var hostTime: Int64
    /// What this analysis looked for: codes, faces or both. Codes and faces are analysed on
    /// queues of their own, so one frame may be reported once for each.
    public var analysedCodes: Bool
    public var analysedFaces: Bool
    /// The frame's picture, when the output attaches pictures (`MetadataOutput.attachesFramePictures`)
    /// and a picture buffer was free: what snapshots of events decided on this frame show.
    public var picture: FramePicture?

    public init(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime, width: Int, height: Int,
                hostTime: Int64 = 0, analysedCodes: Bool = true, analysedFaces: Bool = true) {
        self.sequence = sequence
        self.presentationTime = presentationTime
        self.wallClockTime = wallClockTime
        self.width = width
        self.height = height
        self.hostTime = hostTime
        self.analysedCodes = analysedCodes
        self.analysedFaces = analysedFaces
    }

    init(_ frame: SampleBuffer, analysedCodes: Bool, analysedFaces: Bool) {
        self.init(sequence: frame.sequence, presentationTime: frame.presentationTime, wallClockTime: frame.wallClockTime,
                  width: frame.formatDescription.width, height: frame.formatDescription.height, hostTime: frame.hostTime,
                  analysedCodes: analysedCodes, analysedFaces: analysedFaces)
        picture = frame.picture
    }
}
