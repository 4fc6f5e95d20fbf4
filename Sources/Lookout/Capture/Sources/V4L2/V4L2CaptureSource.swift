import CV4L2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The capture loop of a V4L2 camera, after v4l2-ctl's: all buffers queued, STREAMON, `poll` with a
/// timeout as a watchdog, DQBUF, hand the frame over, and requeue it on the next call (the session
/// has decoded or copied it by then, so a driver that reuses held buffers, like v4l2loopback, can
/// never corrupt a frame being analysed). Buffers flagged as errors, or empty, go back at once.
///
/// When the camera goes away (ENODEV/EIO, POLLERR, or no frame within the watchdog), the source
/// reports the loss, tears everything down (STREAMOFF, munmap, close) and reopens with backoff
/// until frames flow again, then reports that. With reconnection off, a loss ends the stream.
// @unchecked: a frame source is read by its session's capture thread only; stop uses the cancellation pipe.
final class V4L2CaptureSource: FrameSource, @unchecked Sendable {
    let sourceName: String
    let isRealTime = true
    let path: String
    let driver: V4L2Driver
    let choice: FormatChooser.Choice
    let controls: [(name: String, value: Int32)]
    let bufferCount: Int
    let watchdogMilliseconds: Int32
    let reconnects: Bool
    let pixelBudget: PixelBudget
    /// The format the driver granted at the last (re)start.
    private(set) var format: VideoFormatDescription

    private var stream: V4L2Stream?
    private var heldIndex: Int?
    private var nextSequence: UInt64 = 0
    private var lastDriverSequence: UInt32?
    private var lastTimestamp: Int64 = 0
    private var awaitingFirstFrameAfterLoss = false
    /// Beaten after each poll that brought no frame and each reopening attempt (capture thread).
    private var heartbeat: CaptureHeartbeat?
    private let cancellation: CancellationPipe
    private let interruptionHandler = Locked<(@Sendable (SourceInterruption) -> Void)?>(nil)

    /// Backoff between reopen attempts after a loss: 0.25 s doubling to 4 s.
    static let backoff: [Int32] = [250, 500, 1000, 2000, 4000]

    /// Opens and configures the device now, so that every open error surfaces here.
    init(path: String, sourceName: String, driver: V4L2Driver, choice: FormatChooser.Choice,
         controls: [(name: String, value: Int32)], bufferCount: Int, watchdogSeconds: Double,
         reconnects: Bool, pixelBudget: PixelBudget = .standard) throws(DeviceError) {
        self.path = path
        self.sourceName = sourceName
        self.driver = driver
        self.choice = choice
        self.controls = controls
        self.bufferCount = bufferCount
        // Clamped here too, so that no value can make the conversion trap (NaN compares false).
        self.watchdogMilliseconds = Int32(watchdogSeconds >= 0.1 ? min(watchdogSeconds, 3600) * 1000 : 100)
        self.reconnects = reconnects
        self.pixelBudget = pixelBudget
        do throws(Errno) {
            cancellation = try CancellationPipe()
        } catch {
            throw .ioctlFailed(path: path, request: "pipe", error)
        }
        let stream = try V4L2Stream(path: path, driver: driver, choice: choice, controls: controls, bufferCount: bufferCount)
        self.stream = stream
        self.format = Self.description(of: stream)
    }

    deinit {
        stream?.stop()
    }

    private static func description(of stream: V4L2Stream) -> VideoFormatDescription {
        VideoFormatDescription(width: stream.format.width, height: stream.format.height,
                               pixelFormat: stream.format.fourcc.pixelFormat ?? .gray, frameRate: stream.frameRate)
    }

    func setInterruptionHandler(_ handler: @escaping @Sendable (SourceInterruption) -> Void) {
        interruptionHandler.withLock { $0 = handler }
    }

    private func report(_ interruption: SourceInterruption) {
        interruptionHandler.withLock { $0 }?(interruption)
    }

    func cancel() { cancellation.cancel() }

    /// A poll waits for the watchdog's timeout; a reopening, the longest backoff.
    var longestWait: Double { max(Double(watchdogMilliseconds) / 1000, Double(Self.backoff.last ?? 0) / 1000) }

    func attach(_ heartbeat: CaptureHeartbeat) { self.heartbeat = heartbeat }

    private var isCancelled: Bool { cancellation.isCancelled }

    /// True once streaming has started (the first call starts it).
    private var started = false

    func nextFrame() throws(CaptureError) -> SourceFrame? {
        do throws(DeviceError) {
            return try next()
        } catch {
            throw .device(error)
        }
    }

    private func next() throws(DeviceError) -> SourceFrame? {
        // The previous frame has been converted: its buffer goes back to the driver.
        if let index = heldIndex, let stream {
            heldIndex = nil
            do { try stream.queue(index) } catch { try lose(error.description) }
        }
        if !started, let stream {
            started = true
            do { try stream.start() } catch { try lose(error.description) }
        }
        while !isCancelled {
            guard let stream else {
                guard try reopen() else { return nil }
                continue
            }
            switch driver.poll(fd: stream.device.fd, cancelFD: cancellation.readEnd, timeoutMs: watchdogMilliseconds) {
            case .cancelled:
                return nil
            case .timedOut:
                // A frame beats in the session; a poll that ended without one beats here.
                heartbeat?.beat()
                try lose("no frame for \((Double(watchdogMilliseconds) / 1000).formatted(maxFractionDigits: 1)) s")
            case .failed:
                try lose("the device reported an error")
            case .error(let errno):
                heartbeat?.beat()
                if errno != .interrupted { try lose("poll: \(errno)") }
            case .ready:
                let dequeued: V4L2Stream.Dequeued
                do { dequeued = try stream.dequeue() } catch {
                    if case .lost(_, let reason) = error { try lose(reason) } else { throw error }
                    continue
                }
                guard case .buffer(let buffer) = dequeued else { continue }
                return try frame(from: buffer, of: stream)
            }
        }
        return nil
    }

    private func frame(from buffer: v4l2_buffer, of stream: V4L2Stream) throws(DeviceError) -> SourceFrame {
        var lostBefore = 0
        if let last = lastDriverSequence, buffer.sequence > last &+ 1, buffer.sequence > last {
            lostBefore = Int(buffer.sequence - last - 1)
        }
        lastDriverSequence = buffer.sequence
        let sequence = nextSequence + UInt64(lostBefore)
        nextSequence = sequence + 1

        // Buffer timestamps are CLOCK_MONOTONIC; a driver that leaves them empty gets ours, and
        // time never runs backwards in what Lookout reports.
        // A v4l2loopback writer chooses its timestamps: one past what 64-bit nanoseconds hold
        // counts as none rather than trapping.
        let (seconds, overflow) = Int64(buffer.timestamp.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        let microseconds = Int64(buffer.timestamp.tv_usec)
        var timestamp: Int64 = 0
        if !overflow, buffer.timestamp.tv_sec >= 0, (0..<1_000_000).contains(microseconds) {
            let (sum, sumOverflow) = seconds.addingReportingOverflow(microseconds * 1000)
            if !sumOverflow { timestamp = sum }
        }
        if timestamp == 0 { timestamp = MonotonicClock.nanoseconds() }
        if timestamp <= lastTimestamp { timestamp = lastTimestamp + 1 }
        lastTimestamp = timestamp

        if awaitingFirstFrameAfterLoss {
            awaitingFirstFrameAfterLoss = false
            report(.restored(format: format))
        }
        let index = Int(buffer.index)
        var frame = SourceFrame(payload: .corrupt(reason: ""), sequence: sequence,
                                presentationTime: MediaTime(nanoseconds: timestamp), wallClockTime: .now(),
                                format: format, framesLostBefore: lostBefore)
        let used = min(Int(buffer.bytesused), stream.buffers[index].length)
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 || used == 0 {
            frame.payload = .corrupt(reason: used == 0 ? "the driver returned an empty buffer" : "the driver flagged the buffer as damaged")
            do { try stream.queue(index) } catch { try lose(error.description) }
            return frame
        }
        heldIndex = index
        let bytes = UnsafeRawBufferPointer(start: stream.buffers[index].address, count: used)
        if format.pixelFormat == .mjpeg {
            frame.payload = .jpeg(bytes)
        } else {
            let bytesPerPixel = format.pixelFormat == .yuyv || format.pixelFormat == .uyvy ? 2 : 1
            let bytesPerRow = stream.format.bytesPerLine > 0 ? stream.format.bytesPerLine : format.width * bytesPerPixel
            frame.payload = .raw(bytes, bytesPerRow: bytesPerRow)
        }
        return frame
    }

    /// Reports the loss and tears the stream down; throws instead when reconnection is off.
    private func lose(_ reason: String) throws(DeviceError) {
        stream?.stop()
        stream = nil
        heldIndex = nil
        lastDriverSequence = nil
        guard !isCancelled else { return }
        guard reconnects else { throw .lost(path: path, reason: reason) }
        if !awaitingFirstFrameAfterLoss {
            awaitingFirstFrameAfterLoss = true
            report(.lost(reason: reason))
        }
    }

    /// Tries to open and start streaming again, waiting with backoff between attempts.
    /// Returns false when cancelled.
    private func reopen() throws(DeviceError) -> Bool {
        var attempt = 0
        while !isCancelled {
            guard cancellation.sleep(milliseconds: Self.backoff[min(attempt, Self.backoff.count - 1)]) else { return false }
            heartbeat?.beat()
            attempt += 1
            guard let stream = try? V4L2Stream(path: path, driver: driver, choice: choice, controls: controls,
                                               bufferCount: bufferCount) else { continue }
            do {
                try stream.start()
            } catch {
                stream.stop()
                continue
            }
            self.stream = stream
            format = Self.description(of: stream)
            return true
        }
        return false
    }
}
