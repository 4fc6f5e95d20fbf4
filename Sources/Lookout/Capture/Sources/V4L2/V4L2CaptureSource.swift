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
final class V4L2CaptureSource: FrameSource, Sendable {
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
    /// The format the driver granted at the last (re)start: written by the capture thread, read
    /// by `CaptureDeviceInput.formatDescription` from any.
    var format: VideoFormatDescription { published.withLock { $0 } }
    private let published: Locked<VideoFormatDescription>

    /// The capture thread's state, behind a lock only it takes (and init and deinit): a stop goes
    /// through the cancellation pipe, never this.
    private struct Reading {
        var stream: V4L2Stream?
        var format: VideoFormatDescription
        var heldIndex: Int?
        var nextSequence: UInt64 = 0
        var lastDriverSequence: UInt32?
        var timestamps = RisingTimestamp()
        var loss = LossTracker()
        /// Beaten after each poll that brought no frame and each reopening attempt.
        var heartbeat: CaptureHeartbeat?
        /// True once streaming has started (the first call starts it).
        var started = false
    }
    private let reading: Locked<Reading>
    private let cancellation: CancellationPipe
    private let interruptionHandler = Locked<(@Sendable (SourceInterruption) -> Void)?>(nil)


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
        let range = CaptureDeviceInput.watchdogRange
        self.watchdogMilliseconds = Int32(watchdogSeconds >= range.lowerBound ? min(watchdogSeconds, range.upperBound) * 1000 : range.lowerBound * 1000)
        self.reconnects = reconnects
        self.pixelBudget = pixelBudget
        do throws(Errno) {
            cancellation = try CancellationPipe()
        } catch {
            throw .ioctlFailed(path: path, request: "pipe", error)
        }
        let stream = try V4L2Stream(path: path, driver: driver, choice: choice, controls: controls, bufferCount: bufferCount)
        let format = Self.description(of: stream)
        published = Locked(format)
        reading = Locked(Reading(stream: stream, format: format))
    }

    deinit {
        reading.withLock { $0.stream?.stop() }
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
    var longestWait: Double { max(Double(watchdogMilliseconds) / 1000, Backoff.capture.longest) }

    func attach(_ heartbeat: CaptureHeartbeat) { reading.withLock { $0.heartbeat = heartbeat } }

    private var isCancelled: Bool { cancellation.isCancelled }

    func nextFrame() throws(CaptureError) -> SourceFrame? {
        do throws(DeviceError) {
            return try reading.withLock { reading throws(DeviceError) in try next(&reading) }
        } catch {
            throw .device(error)
        }
    }

    private func next(_ reading: inout Reading) throws(DeviceError) -> SourceFrame? {
        // The previous frame has been converted: its buffer goes back to the driver.
        if let index = reading.heldIndex, let stream = reading.stream {
            reading.heldIndex = nil
            do { try stream.queue(index) } catch { try lose(error.description, &reading) }
        }
        if !reading.started, let stream = reading.stream {
            reading.started = true
            do { try stream.start() } catch { try lose(error.description, &reading) }
        }
        while !isCancelled {
            guard let stream = reading.stream else {
                guard try reopen(&reading) else { return nil }
                continue
            }
            switch driver.poll(fd: stream.device.fd, cancelFD: cancellation.readEnd, timeoutMs: watchdogMilliseconds) {
            case .cancelled:
                return nil
            case .timedOut:
                // A frame beats in the session; a poll that ended without one beats here.
                reading.heartbeat?.beat()
                try lose("no frame for \((Double(watchdogMilliseconds) / 1000).formatted(maxFractionDigits: 1)) s", &reading)
            case .failed:
                try lose("the device reported an error", &reading)
            case .error(let errno):
                reading.heartbeat?.beat()
                if errno != .interrupted { try lose("poll: \(errno)", &reading) }
            case .ready:
                let dequeued: V4L2Stream.Dequeued
                do { dequeued = try stream.dequeue() } catch {
                    if case .lost(_, let reason) = error { try lose(reason, &reading) } else { throw error }
                    continue
                }
                guard case .buffer(let buffer) = dequeued else { continue }
                return try frame(from: buffer, of: stream, &reading)
            }
        }
        return nil
    }

    private func frame(from buffer: v4l2_buffer, of stream: V4L2Stream, _ reading: inout Reading) throws(DeviceError) -> SourceFrame {
        var lostBefore = 0
        if let last = reading.lastDriverSequence, buffer.sequence > last &+ 1, buffer.sequence > last {
            lostBefore = Int(buffer.sequence - last - 1)
        }
        reading.lastDriverSequence = buffer.sequence
        let sequence = reading.nextSequence + UInt64(lostBefore)
        reading.nextSequence = sequence + 1
        let format = reading.format

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
        timestamp = reading.timestamps.next(timestamp)

        if reading.loss.restore() {
            report(.restored(format: format))
        }
        let index = Int(buffer.index)
        var frame = SourceFrame(payload: .corrupt(reason: ""), sequence: sequence,
                                presentationTime: MediaTime(nanoseconds: timestamp), wallClockTime: .now(),
                                format: format, framesLostBefore: lostBefore)
        let used = min(Int(buffer.bytesused), stream.buffers[index].length)
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 || used == 0 {
            frame.payload = .corrupt(reason: used == 0 ? "the driver returned an empty buffer" : "the driver flagged the buffer as damaged")
            do { try stream.queue(index) } catch { try lose(error.description, &reading) }
            return frame
        }
        reading.heldIndex = index
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
    private func lose(_ reason: String, _ reading: inout Reading) throws(DeviceError) {
        reading.stream?.stop()
        reading.stream = nil
        reading.heldIndex = nil
        reading.lastDriverSequence = nil
        guard !isCancelled else { return }
        guard reconnects else { throw .lost(path: path, reason: reason) }
        if reading.loss.lose() {
            report(.lost(reason: reason))
        }
    }

    /// Tries to open and start streaming again, waiting with backoff between attempts.
    /// Returns false when cancelled.
    private func reopen(_ reading: inout Reading) throws(DeviceError) -> Bool {
        var backoff = Backoff.capture
        while !isCancelled {
            guard cancellation.sleep(milliseconds: backoff.milliseconds) else { return false }
            reading.heartbeat?.beat()
            backoff.increase()
            guard let stream = try? V4L2Stream(path: path, driver: driver, choice: choice, controls: controls,
                                               bufferCount: bufferCount) else { continue }
            do {
                try stream.start()
            } catch {
                stream.stop()
                continue
            }
            reading.stream = stream
            reading.format = Self.description(of: stream)
            published.withLock { [format = reading.format] in $0 = format }
            return true
        }
        return false
    }
}
