/// A camera as a session input (AVCaptureDeviceInput). Creating it opens and configures the device,
/// so every open error (no such device, permissions, busy, not a capture device, format refused)
/// surfaces here; streaming starts with the session.
///
/// What a delegate may keep: a `SampleBuffer` never points into driver memory. Each frame is
/// decoded or copied into the session's own pool right after VIDIOC_DQBUF, and the driver buffer
/// is queued again before the next frame is dequeued. Keeping sample buffers therefore never
/// stalls the driver or corrupts a frame (even with v4l2loopback, which reuses held buffers);
/// it takes buffers from the session's small pool, and frames drop as `outOfBuffers` while the
/// pool is empty.
// @unchecked: restates its base class's; its source is the capture thread's.
public final class CaptureDeviceInput: CaptureInput, @unchecked Sendable {
    public let device: CaptureDevice
    private let capture: V4L2CaptureSource
    /// The watchdog times a camera (and a network source) takes, in seconds: the `watchdog`
    /// setting's range.
    public static let watchdogRange = 0.2...3600.0

    /// - Parameters:
    ///   - device: the camera, opened by `CaptureDevice`.
    ///   - watchdogTimeout: seconds without a frame after which the camera counts as lost.
    ///   - reconnectsAfterLoss: reopen a lost camera with backoff (true), or end the stream with
    ///     an error (false) for users whose supervisor restarts the program.
    ///   - pixelBudget: a format larger than this is refused here; frames larger than it (a JPEG
    ///     whose header says more than the format) are dropped as corrupt.
    public init(device: CaptureDevice, watchdogTimeout: Double = 3, reconnectsAfterLoss: Bool = true,
                pixelBudget: PixelBudget = .standard) throws(CaptureError) {
        self.device = device
        let chosen = device.activeFormat ?? device.preferredFormat()
        guard let chosen, chosen.isSupported else {
            throw .device(.noUsableFormat(path: device.uniqueID, offered: Array(Set(device.formats.map(\.fourcc.description))).sorted()))
        }
        guard pixelBudget.allows(width: chosen.width, height: chosen.height) else {
            throw .device(.formatRefused(path: device.uniqueID, requested: "\(chosen.fourcc) \(chosen.width)x\(chosen.height)",
                                         reason: pixelBudget.refusal(width: chosen.width, height: chosen.height)))
        }
        guard Self.watchdogRange.contains(watchdogTimeout) else {
            throw .invalidSetting("a watchdog of \(watchdogTimeout) s is not between \(Self.watchdogRange.lowerBound) and \(Int(Self.watchdogRange.upperBound)) seconds")
        }
        var rate = device.requestedFrameRate
        if rate == nil {
            rate = FormatChooser.choose(from: [chosen], fourcc: chosen.fourcc, size: (chosen.width, chosen.height))?.frameRate
        }
        let choice = FormatChooser.Choice(fourcc: chosen.fourcc, width: chosen.width, height: chosen.height, frameRate: rate)
        do throws(DeviceError) {
            capture = try V4L2CaptureSource(path: device.uniqueID, sourceName: device.uniqueID, driver: device.driver,
                                            choice: choice, controls: device.requestedControls,
                                            bufferCount: device.bufferCount, watchdogSeconds: watchdogTimeout,
                                            reconnects: reconnectsAfterLoss, pixelBudget: pixelBudget)
        } catch {
            throw .device(error)
        }
        super.init(source: capture)
    }

    /// What the driver granted: size, pixel format and frame rate.
    public var formatDescription: VideoFormatDescription { capture.format }
}

extension CaptureDevice {
    /// The format Lookout streams when not told otherwise, or the nearest to what is asked: MJPEG,
    /// then YUYV, then planar formats; 1280x720 or the nearest size offered. Nil when the device
    /// offers nothing Lookout reads (or not the pixel format asked for).
    public func preferredFormat(fourcc: FourCC? = nil, size: (width: Int, height: Int)? = nil) -> Format? {
        guard let choice = FormatChooser.choose(from: formats, fourcc: fourcc, size: size) else { return nil }
        guard var format = formats.first(where: { $0.fourcc == choice.fourcc && (($0.width == choice.width && $0.height == choice.height) || $0.sizeRange != nil) }) else {
            return nil
        }
        format.width = choice.width
        format.height = choice.height
        return format
    }
}
