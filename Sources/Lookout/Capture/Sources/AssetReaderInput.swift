import Synchronization

/// A capture input that reads recorded video: an MJPEG elementary stream (concatenated JPEGs) or a
/// YUV4MPEG2 stream, from a file or standard input. It feeds the same outputs a camera does; the
/// role AVAssetReader plays for AVFoundation, shaped as an input so sessions need no special case.
// @unchecked: restates its base class's; its source is the capture thread's.
public final class AssetReaderInput: CaptureInput, @unchecked Sendable {
    /// How frames are timed.
    public enum Pacing: Sendable, Equatable {
        /// Read as fast as the outputs take frames; every frame is analysed (the default for files).
        case asFastAsPossible
        /// Behave like a camera: outputs that fall behind drop late frames instead of slowing the
        /// input. A file is delivered at its frame rate; a pipe is taken at the pace its writer
        /// sends (it is live already, and pacing it again would only add delay).
        case realTime
    }

    /// The container format detected from the stream's first bytes.
    public enum Container: String, Sendable {
        case mjpeg
        case y4m
    }

    public let container: Container
    public let pacing: Pacing
    /// The stream's format; for MJPEG the size is known once the first frame is read.
    public var formatDescription: VideoFormatDescription { recorded.format }

    private let recorded: RecordedStreamSource

    /// Opens `path` (`-` for standard input) and detects its format.
    ///
    /// - Parameters:
    ///   - path: an MJPEG or Y4M file or pipe; `-` reads standard input.
    ///   - pacing: as fast as the outputs take frames (a file), or at the stream's own rate.
    ///   - frameRate: the rate that gives MJPEG frames their presentation times (MJPEG streams
    ///     carry none); Y4M streams use the rate in their header unless this is set. Must be in
    ///     `FrameRate.validRange`.
    ///   - pixelBudget: frames larger than this are refused: a Y4M header declaring more fails
    ///     here, JPEG frames are dropped as corrupt before they are decoded.
    public init(path: String, pacing: Pacing = .asFastAsPossible, frameRate: Double? = nil,
                pixelBudget: PixelBudget = .standard) throws(CaptureError) {
        if let frameRate, !FrameRate.validRange.contains(frameRate) {
            throw .invalidSetting("a frame rate of \(frameRate) is not \(FrameRate.rangeDescription)")
        }
        let source: RecordedStreamSource
        do {
            source = try RecordedStreamSource(path: path, pacing: pacing, frameRate: frameRate, pixelBudget: pixelBudget)
        } catch {
            throw .input(error)
        }
        self.recorded = source
        self.container = source.container
        self.pacing = pacing
        super.init(source: source)
    }
}

/// The frame source behind `AssetReaderInput`.
final class RecordedStreamSource: FrameSource, Sendable {
    let sourceName: String
    let container: AssetReaderInput.Container
    let isRealTime: Bool
    let pixelBudget: PixelBudget
    let format: VideoFormatDescription

    private let reader: FileDescriptorReader
    /// The reading's state: the capture thread's (its lock is never waited for).
    private struct Reading {
        var mjpeg: MJPEGStreamReader?
        var y4m: Y4MStreamReader?
        var sequence: UInt64 = 0
        var startTime: Int64?
    }
    private let reading: Locked<Reading>
    private let frameDuration: Int64
    /// Real-time files are paced by the clock; pipes arrive at their writer's pace.
    private let pacedByClock: Bool

    /// Frame rate assumed for MJPEG streams when none is given: what most webcams send.
    static let defaultMJPEGFrameRate = 30.0

    init(path: String, pacing: AssetReaderInput.Pacing, frameRate: Double?, pixelBudget: PixelBudget) throws(MediaError) {
        reader = try FileDescriptorReader(path: path)
        sourceName = path
        self.pixelBudget = pixelBudget
        isRealTime = pacing == .realTime
        pacedByClock = isRealTime && reader.isRegularFile
        // Sniff the container from the first bytes.
        let sniffed = UnsafeMutableRawPointer.allocate(byteCount: 9, alignment: 1)
        defer { sniffed.deallocate() }
        let got = try reader.readFully(into: sniffed, count: 9)
        let prefix = Array(UnsafeRawBufferPointer(start: sniffed, count: got))
        var reading = Reading()
        var format: VideoFormatDescription
        if ImageSignature.format(of: prefix) == "JPEG" {
            container = .mjpeg
            reading.mjpeg = MJPEGStreamReader(reader: reader, prefix: prefix)
            let rate = frameRate ?? Self.defaultMJPEGFrameRate
            format = VideoFormatDescription(width: 0, height: 0, pixelFormat: .mjpeg, frameRate: rate)
        } else if prefix == Array("YUV4MPEG2".utf8) {
            container = .y4m
            let stream = try Y4MStreamReader(reader: reader, prefix: prefix, budget: pixelBudget)
            reading.y4m = stream
            format = stream.format
            if let frameRate { format.frameRate = frameRate }
            if format.frameRate == nil { format.frameRate = Self.defaultMJPEGFrameRate }
        } else {
            throw .unrecognizedStream(path: path == "-" ? "standard input" : path, firstBytes: prefix)
        }
        // The rate is in FrameRate.validRange: at most 1e12 ns a frame.
        frameDuration = Int64((1e9 / format.frameRate!).rounded())
        self.format = format
        self.reading = Locked(reading)
    }

    func nextFrame() throws(CaptureError) -> SourceFrame? {
        try reading.withLock { reading throws(CaptureError) in try nextFrame(&reading) }
    }

    private func nextFrame(_ reading: inout Reading) throws(CaptureError) -> SourceFrame? {
        let sequence = reading.sequence
        // Saturates rather than traps for streams of billions of frames at a slow rate.
        let (nanoseconds, overflow) = Int64(truncatingIfNeeded: sequence).multipliedReportingOverflow(by: frameDuration)
        let presentationTime = MediaTime(nanoseconds: overflow ? .max : nanoseconds)
        if pacedByClock {
            let now = MonotonicClock.nanoseconds()
            let start = reading.startTime ?? now
            reading.startTime = start
            let (deadline, overflow) = start.addingReportingOverflow(presentationTime.nanoseconds)
            guard reader.wait(untilMonotonicNanoseconds: overflow ? .max : deadline) else { return nil }
        }
        let payload: SourceFrame.Payload
        do {
            if let mjpeg = reading.mjpeg {
                guard let event = try mjpeg.next() else { return nil }
                switch event {
                case .jpeg(let bytes): payload = .jpeg(bytes)
                case .corrupt(let reason): payload = .corrupt(reason: reason)
                }
            } else {
                guard let event = try reading.y4m!.next() else { return nil }
                switch event {
                case .frame(let bytes): payload = .raw(bytes, bytesPerRow: format.width)
                case .corrupt(let reason): payload = .corrupt(reason: reason)
                }
            }
        } catch {
            throw .input(error)
        }
        reading.sequence += 1
        return SourceFrame(payload: payload, sequence: sequence, presentationTime: presentationTime,
                           wallClockTime: .now(), format: format)
    }

    func cancel() {
        reader.cancel()
    }

    /// A file paced by the clock waits a frame's interval; a pipe's read returns when its writer
    /// sends, and has no bound of its own.
    var longestWait: Double { pacedByClock ? Double(frameDuration) / 1e9 : 0 }
}
