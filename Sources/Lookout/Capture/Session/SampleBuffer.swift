/// One captured frame as outputs and delegates see it: the analogue of CMSampleBuffer.
///
/// The luma image lives in a pooled buffer that returns to its fixed pool when the last holder of
/// this object (and of its `imageBuffer`) lets go. A delegate that keeps sample buffers keeps pool
/// buffers: hold one only as long as you need it, copy what you want to keep, or frames drop as
/// out of buffers.
public final class SampleBuffer: Sendable {
    /// Position of the frame in its stream, from 0; gaps mean frames were lost before Lookout saw them.
    public let sequence: UInt64
    /// When the frame was captured, on the stream's clock.
    public let presentationTime: MediaTime
    /// When Lookout received the frame, on the wall clock.
    public let wallClockTime: WallClockTime
    /// The frame as the input delivered it (size, original pixel format, nominal rate).
    public let formatDescription: VideoFormatDescription
    /// The frame's luma plane. Its size is the frame's (`formatDescription`), or half of it (rounded
    /// up) when every output taking the frame reads no more: a `MetadataOutput` scanning codes at
    /// half resolution (or none), on a frame no face analysis is due on. The session then decodes the JPEG
    /// frame at 1/2 scale. A `VideoDataOutput` always gets the full size.
    public let imageBuffer: PixelBuffer
    /// When Lookout received the frame, in MonotonicClock nanoseconds: the start of the
    /// capture-to-output latency that `--stats` reports.
    public let hostTime: Int64
    /// The frame as the input sent it (JPEG bytes, or raw planes with chroma), present only when
    /// an output taking the frame asked for pictures and a picture buffer was free.
    public let picture: FramePicture?

    public init(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime,
                formatDescription: VideoFormatDescription, imageBuffer: PixelBuffer,
                hostTime: Int64 = MonotonicClock.nanoseconds(), picture: FramePicture? = nil) {
        self.sequence = sequence
        self.presentationTime = presentationTime
        self.wallClockTime = wallClockTime
        self.formatDescription = formatDescription
        self.imageBuffer = imageBuffer
        self.hostTime = hostTime
        self.picture = picture
    }

    /// How much smaller than the frame `imageBuffer` is: 1, or 2 for a plane decoded at half size
    /// (rounded up, so an odd frame size gives one plane pixel more than half).
    var lumaReduction: Int { imageBuffer.width < formatDescription.width ? 2 : 1 }

    /// Frame pixels per `imageBuffer` pixel, across and down: what turns the plane's coordinates
    /// into the frame's.
    var lumaScale: (x: Double, y: Double) {
        (Double(formatDescription.width) / Double(max(1, imageBuffer.width)),
         Double(formatDescription.height) / Double(max(1, imageBuffer.height)))
    }
}
