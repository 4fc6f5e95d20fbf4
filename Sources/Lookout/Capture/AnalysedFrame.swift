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

    public init(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime, width: Int, height: Int) {
        self.sequence = sequence
        self.presentationTime = presentationTime
        self.wallClockTime = wallClockTime
        self.width = width
        self.height = height
    }

    init(_ frame: SampleBuffer) {
        self.init(sequence: frame.sequence, presentationTime: frame.presentationTime, wallClockTime: frame.wallClockTime,
                  width: frame.imageBuffer.width, height: frame.imageBuffer.height)
    }
}
