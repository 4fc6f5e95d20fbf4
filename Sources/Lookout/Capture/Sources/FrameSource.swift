/// One frame as an input produced it, before it becomes a luma `PixelBuffer`.
///
/// Its bytes belong to the source and stay valid only until the source's next `nextFrame()` call:
/// the session converts (decodes or copies) them before asking for another frame. This is the
/// contract a V4L2 source needs, where a buffer goes back to the driver queue right after.
struct SourceFrame {
    enum Payload {
        /// A complete JPEG image.
        case jpeg(UnsafeRawBufferPointer)
        /// Raw pixels in the layout `format.pixelFormat`, rows `bytesPerRow` apart.
        case raw(UnsafeRawBufferPointer, bytesPerRow: Int)
        /// A frame that arrived damaged.
        case corrupt(reason: String)
    }

    var payload: Payload
    var sequence: UInt64
    var presentationTime: MediaTime
    var wallClockTime: WallClockTime
    /// Frame size and layout; for JPEG the size is only known after decoding the header (0 until then).
    var format: VideoFormatDescription
    /// Frames the source knows were lost just before this one (a sequence gap).
    var framesLostBefore: Int = 0
}

/// What a capture input plugs into a session: a blocking stream of frames driven by the session's
/// capture thread. Recorded files implement it today; V4L2 devices implement it the same way.
protocol FrameSource: AnyObject, Sendable {
    /// Name of the source for output lines ("sample.mjpeg", "-", "/dev/video0").
    var sourceName: String { get }
    /// True for cameras and paced recordings: consumers that fall behind lose frames (counted) and
    /// the source never waits. False for recordings read as fast as possible: the source waits for
    /// consumers instead, so every frame is analysed.
    var isRealTime: Bool { get }
    /// Frames larger than this are dropped as corrupt before they are decoded.
    var pixelBudget: PixelBudget { get }
    /// The next frame, blocking until it arrives. Nil at end of input or after `cancel()`.
    func nextFrame() throws(CaptureError) -> SourceFrame?
    /// Makes a blocked or later `nextFrame()` return nil promptly. Callable from any thread.
    func cancel()
    /// Where the source reports losing its frames and finding them again (a camera unplugged and
    /// back); called before the first `nextFrame()`.
    func setInterruptionHandler(_ handler: @escaping @Sendable (SourceInterruption) -> Void)
    /// The longest wait the source bounds itself inside `nextFrame()` between beats (a camera's
    /// poll, a reconnection's backoff, a paced file's frame interval), in seconds; 0 when it has
    /// none (a read that returns when its writer sends). See `CaptureHeartbeat`.
    var longestWait: Double { get }
    /// The heartbeat the source beats after each of its bounded waits; before the first `nextFrame()`.
    func attach(_ heartbeat: CaptureHeartbeat)
}

extension FrameSource {
    func setInterruptionHandler(_ handler: @escaping @Sendable (SourceInterruption) -> Void) {}
    var longestWait: Double { 0 }
    func attach(_ heartbeat: CaptureHeartbeat) {}
}

/// A source losing its frames, or getting them back.
enum SourceInterruption: Sendable {
    case lost(reason: String)
    case restored(format: VideoFormatDescription)
}
