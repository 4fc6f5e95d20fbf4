import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The frame source behind `FFmpegInput`: runs ffmpeg, reads its YUV4MPEG2 frames, and for a
/// network source watches for silence and restarts it (the V4L2 source's loss and backoff).
final class FFmpegSource: FrameSource, Sendable {
    let sourceName: String
    let isRealTime: Bool
    let pixelBudget: PixelBudget
    let isNetwork: Bool
    /// Written by the capture thread, read by `FFmpegInput.formatDescription`.
    let format: Locked<VideoFormatDescription>

    private let path: String
    private let arguments: [String]
    private let limits: FFmpegLimits
    private let options: FFmpegInput.Options
    private let cancellation: CancellationPipe
    private let interruptionHandler = Locked<(@Sendable (SourceInterruption) -> Void)?>(nil)

    /// The capture thread's state, behind a lock only it takes (and init and deinit): a stop
    /// goes through the cancellation pipe and `watched`, never this.
    private struct Reading {
        var process: FFmpegProcess?
        var stream: Y4MStreamReader?
        var sequence: UInt64 = 0
        var frameDuration: Int64 = 33_333_333
        /// The stream's format as the capture thread reads it; `format` publishes it, on each start.
        var currentFormat: VideoFormatDescription
        var loss = LossTracker()
        /// Set when the pictures are over the budget: a network source then ends, since a
        /// restart would decode the same size again.
        var isOverBudget = false
        var timestamps = RisingTimestamp()
        var watchdog: (any DispatchSourceTimer)?
        var backoff = Backoff.capture
        /// Beaten after each restart's backoff.
        var heartbeat: CaptureHeartbeat?
    }
    private let reading: Locked<Reading>
    /// The running child and when it last made progress (MonotonicClock ns), for the watchdog.
    private let watched = Locked<(process: FFmpegProcess?, lastProgress: Int64, fired: Bool, streaming: Bool)>((nil, 0, false, false))

    /// Schemes checked once per process: running `ffmpeg -protocols` costs a start of ffmpeg.
    private static let knownSchemes = Locked<[String: Set<String>]>([:])

    init(path: String, options: FFmpegInput.Options, pixelBudget: PixelBudget) throws(MediaError) {
        // A file: URL is the file: read once to its end, not watched and restarted like a camera.
        let local = try FFmpegInput.fileURLPath(path)
        let path = local ?? path
        self.path = path
        self.options = options
        self.pixelBudget = pixelBudget
        limits = FFmpegLimits(budget: pixelBudget)
        isNetwork = local == nil && FFmpegInput.isURL(path)
        sourceName = FFmpegInput.redacted(path)
        isRealTime = isNetwork || options.pacing == .realTime
        let initial = VideoFormatDescription(width: 0, height: 0, pixelFormat: options.carriesChroma ? .yuv420 : .gray, frameRate: nil)
        format = Locked(initial)
        reading = Locked(Reading(currentFormat: initial))
        do throws(Errno) { cancellation = try CancellationPipe() } catch { throw .unreadable(path: sourceName, error) }

        let program = try Self.locate(options.program, for: sourceName)
        if isNetwork {
            let scheme = String(path[..<path.firstRange(of: "://")!.lowerBound]).lowercased()
            let schemes = Self.knownSchemes.withLock { $0[program] } ?? {
                let found = FFmpegInput.readableSchemes(program: program)
                Self.knownSchemes.withLock { $0[program] = found }
                return found
            }()
            guard schemes.contains(scheme) else { throw .unsupportedURL(url: sourceName, scheme: scheme) }
        } else {
            // The same errors as any file: missing, unreadable, a directory.
            _ = try FileDescriptorReader(path: path)
        }
        arguments = Self.arguments(program: program, path: path, options: options, isNetwork: isNetwork, limits: limits)
        if !isNetwork {
            // A file ffmpeg cannot read fails now, saying why.
            try reading.withLock { reading throws(MediaError) in try start(&reading) }
        }
    }

    deinit {
        reading.withLock { reading in
            reading.watchdog?.cancel()
            stopProcess(&reading)
        }
    }

    /// ffmpeg's command line: quiet but for errors, video only, frames as Y4M on standard output;
    /// its decoder limited to `limits.decoderPixels` and, without hardware decoding, its memory to
    /// `limits.addressSpaceBytes`.
    static func arguments(program: String, path: String, options: FFmpegInput.Options, isNetwork: Bool,
                          limits: FFmpegLimits) -> [String] {
        var arguments = [program, "-hide_banner", "-nostdin", "-loglevel", "error"]
        if let accel = options.hardwareAcceleration { arguments += ["-hwaccel", accel] }
        arguments += ["-max_pixels", String(limits.decoderPixels)]
        if isNetwork {
            // A stalled server must not hold ffmpeg for minutes (the watchdog restarts it anyway).
            // RTSP is a demuxer with its own socket timeout; every other scheme is a protocol.
            let timeout = String(Int64(max(1, options.watchdogTimeout) * 2_000_000))
            if path.lowercased().hasPrefix("rtsp") {
                // TCP for RTSP: lost UDP packets smear frames, which no detector reads through.
                arguments += ["-rtsp_transport", "tcp", "-timeout", timeout]
            } else {
                arguments += ["-rw_timeout", timeout]
            }
        } else if options.pacing == .realTime {
            arguments += ["-re"]
        }
        arguments += ["-i", path, "-map", "0:v:0", "-an", "-sn", "-dn"]
        // Live: each frame as it comes, never duplicated to fill a constant rate.
        if isNetwork { arguments += ["-fps_mode", "passthrough"] }
        // Luma only: the decoder's own Y plane, copied out (extractplanes). `-pix_fmt gray` alone
        // would convert every pixel from limited to full range, twice ffmpeg's whole cost (P8).
        // A decoder whose output has no Y plane (GIF, PNG, RGB FFV1: RGB or a palette) is
        // converted by ffmpeg to one of these first; one with a Y plane passes through unchanged.
        // 4:2:0 is what most decoders give: passed through as it is.
        arguments += options.carriesChroma ? ["-pix_fmt", "yuv420p"]
            : ["-vf", "format=" + lumaPlaneFormats.joined(separator: "|") + ",extractplanes=y", "-pix_fmt", "gray"]
        arguments += ["-f", "yuv4mpegpipe", "-strict", "-1", "pipe:1"]
        // Hardware decoders map device memory into the address space: no limit there.
        return options.hardwareAcceleration == nil ? limits.wrapping(arguments) : arguments
    }

    /// The 8-bit formats with a Y plane that extractplanes copies without conversion (ffmpeg 5.1).
    /// Deeper formats are left out: with several depths listed, ffmpeg cannot choose extractplanes'
    /// formats; they are converted to 8 bits, as `-pix_fmt gray` would do after them anyway.
    static let lumaPlaneFormats = ["gray", "yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p",
                                   "yuv440p", "yuvj440p", "yuv411p", "yuvj411p", "yuv410p", "yuva420p", "yuva422p",
                                   "yuva444p", "ya8"]

    /// The ffmpeg program to run: `program`, $LOOKOUT_FFMPEG, or `ffmpeg` on $PATH.
    private static func locate(_ program: String?, for path: String) throws(MediaError) -> String {
        let name = program ?? getenv("LOOKOUT_FFMPEG").map { String(cString: $0) } ?? "ffmpeg"
        if name.contains("/") {
            guard access(name, X_OK) == 0 else { throw .ffmpegMissing(path: path, reason: "is not at \(name) (\(Errno.current))") }
            return name
        }
        guard let found = ChildProcess.findOnPath(name) else { throw .ffmpegMissing(path: path, reason: "is not on $PATH") }
        return found
    }

    /// Runs a short ffmpeg command and returns its standard output, or nil when it cannot run.
    static func run(program: String, arguments: [String]) -> String? {
        guard let process = try? FFmpegProcess(arguments: [program] + arguments, name: "ffmpeg") else { return nil }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = try? buffer.withUnsafeMutableBytes { bytes throws(MediaError) in
                try process.output.read(into: bytes.baseAddress!, count: bytes.count)
            }
            guard case .bytes(let n)? = result else { break }
            text += buffer[0..<n]
        }
        process.reap()
        return String(decoding: text, as: UTF8.self)
    }

    func setInterruptionHandler(_ handler: @escaping @Sendable (SourceInterruption) -> Void) {
        interruptionHandler.withLock { $0 = handler }
    }

    private func report(_ interruption: SourceInterruption) {
        interruptionHandler.withLock { $0 }?(interruption)
    }

    func cancel() {
        cancellation.cancel()
        // The running child, as the capture thread published it: killed, and its reader woken.
        let child = watched.withLock { $0.process }
        child?.kill()
        child?.output.cancel()
    }

    // MARK: Capture thread

    /// Starts ffmpeg and reads the stream header (waiting for ffmpeg to open the input).
    private func start(_ reading: inout Reading) throws(MediaError) {
        let child: FFmpegProcess
        do {
            child = try FFmpegProcess(arguments: arguments, name: sourceName)
        } catch {
            throw .ffmpegMissing(path: sourceName, reason: "could not be started (\(error))")
        }
        reading.process = child
        watched.withLock { $0 = (child, MonotonicClock.nanoseconds(), false, false) }
        // A cancel that came before the child was published must still stop it.
        if cancellation.isCancelled {
            child.kill()
            child.output.cancel()
        }
        startWatchdog(&reading)
        // The header: 9 bytes of signature first, as a file's are sniffed.
        let prefix = UnsafeMutableRawPointer.allocate(byteCount: 9, alignment: 1)
        defer { prefix.deallocate() }
        let got = try child.output.readFully(into: prefix, count: 9)
        let bytes = Array(UnsafeRawBufferPointer(start: prefix, count: got))
        guard bytes == Array("YUV4MPEG2".utf8) else {
            throw failure(of: child, default: bytes.isEmpty ? "wrote no video" : "wrote something that is not Y4M", &reading)
        }
        let reader: Y4MStreamReader
        do {
            // The size ffmpeg decodes, checked before its first frame is read; over the budget,
            // ffmpeg is stopped at once.
            reader = try Y4MStreamReader(reader: child.output, prefix: bytes, budget: pixelBudget) { [sourceName, pixelBudget] width, height in
                .ffmpegFailed(path: sourceName, reason: pixelBudget.exceeded(width: width, height: height))
            }
        } catch {
            if case .ffmpegFailed = error { reading.isOverBudget = true }
            stopProcess(&reading)
            throw error
        }
        reading.stream = reader
        var described = reader.format
        if described.frameRate == nil { described.frameRate = 30 }
        reading.frameDuration = Int64((1e9 / described.frameRate!).rounded())
        reading.currentFormat = described
        format.withLock { $0 = described }
    }

    /// Why `child` stopped, in Lookout's words, from its exit and what it said (kept as the
    /// detail); reaps it. `text` completes "ffmpeg ..." when ffmpeg said nothing Lookout knows,
    /// for a file; a network source's reason (in `camera_lost`) is then ffmpeg's own line.
    private func failure(of child: FFmpegProcess, default text: String, _ reading: inout Reading) -> MediaError {
        let fired = watched.withLock { $0.fired }
        let status = child.reap()
        if fired {
            let waited = watched.withLock { $0.streaming } ? options.watchdogTimeout : max(options.watchdogTimeout, Self.startupGrace)
            return .ffmpegFailed(path: sourceName, reason: "no frame for \(waited.formatted(maxFractionDigits: 1)) s")
        }
        let diagnosis = FFmpegDiagnosis(lines: child.errors.map(redacted), budget: pixelBudget, limits: limits)
        if diagnosis.isOverBudget { reading.isOverBudget = true }
        let stopped = status & 0x7f != 0 ? "ffmpeg was killed by signal \(status & 0x7f)" : "ffmpeg \(text)"
        let reason = diagnosis.reason ?? (isNetwork ? diagnosis.ffmpegLine : nil) ?? stopped
        return .ffmpegFailed(path: sourceName, reason: reason, detail: diagnosis.ffmpegLine)
    }

    /// ffmpeg's words without the URL's password (`user:PASSWORD@`, as ffmpeg quotes the URL):
    /// they go into lines, MQTT and the journal.
    private func redacted(_ message: String) -> String {
        guard let range = FFmpegInput.passwordRange(in: path), !range.isEmpty else { return message }
        return message.replacing(":" + path[range] + "@", with: ":***@")
    }

    private func stopProcess(_ reading: inout Reading) {
        guard let child = reading.process else { return }
        watched.withLock { $0.process = nil }
        child.kill()
        child.reap()
        reading.process = nil
        reading.stream = nil
    }

    /// Before a new ffmpeg's first frame the watchdog waits at least this long: ffmpeg probes a
    /// network stream (5 s by default) and waits for a key frame before it sends anything.
    static let startupGrace = 10.0

    /// Checks a few times a second that frames flow; kills a silent ffmpeg so its pipe ends.
    private func startWatchdog(_ reading: inout Reading) {
        guard reading.watchdog == nil, isNetwork else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lookout.ffmpeg.watchdog"))
        let streamingLimit = Int64(options.watchdogTimeout * 1e9)
        let startupLimit = Int64(max(options.watchdogTimeout, Self.startupGrace) * 1e9)
        let period = max(0.05, min(0.25, options.watchdogTimeout / 4))
        timer.schedule(deadline: .fromNow(seconds: period), repeating: period)
        timer.setEventHandler { [watched] in
            let stale: FFmpegProcess? = watched.withLock { state in
                let limit = state.streaming ? streamingLimit : startupLimit
                guard let child = state.process, !state.fired, MonotonicClock.nanoseconds() - state.lastProgress > limit else { return nil }
                state.fired = true
                return child
            }
            stale?.kill()
        }
        timer.resume()
        reading.watchdog = timer
    }

    func nextFrame() throws(CaptureError) -> SourceFrame? {
        try reading.withLock { reading throws(CaptureError) in try nextFrame(&reading) }
    }

    private func nextFrame(_ reading: inout Reading) throws(CaptureError) -> SourceFrame? {
        while !cancellation.isCancelled {
            if reading.stream == nil {
                guard isNetwork else { return nil }
                do {
                    try start(&reading)
                } catch {
                    if cancellation.isCancelled { return nil }
                    try lose(error, &reading)
                    continue
                }
            }
            let event: Y4MStreamReader.Event?
            do {
                event = try reading.stream!.next()
            } catch {
                if cancellation.isCancelled { return nil }
                guard isNetwork else { throw .input(error) }
                try lose(error, &reading)
                continue
            }
            guard let event else {
                if cancellation.isCancelled { return nil }
                let child = reading.process!
                let status = child.reap()
                if !isNetwork {
                    defer { stopProcess(&reading) }
                    if FFmpegProcess.succeeded(status) { return nil }
                    throw .input(failure(of: child, default: "exited with status \((status >> 8) & 0xff)", &reading))
                }
                try lose(failure(of: child, default: "ended the stream", &reading), &reading)
                continue
            }
            watched.withLock {
                $0.lastProgress = MonotonicClock.nanoseconds()
                $0.streaming = true
            }
            return frame(from: event, &reading)
        }
        return nil
    }

    private func frame(from event: Y4MStreamReader.Event, _ reading: inout Reading) -> SourceFrame {
        let described = reading.currentFormat
        var presentationTime: MediaTime
        if isNetwork {
            // Live: the arrival time on CLOCK_MONOTONIC, as V4L2 buffers are stamped.
            presentationTime = MediaTime(nanoseconds: reading.timestamps.next(MonotonicClock.nanoseconds()))
        } else {
            let (nanoseconds, overflow) = Int64(truncatingIfNeeded: reading.sequence).multipliedReportingOverflow(by: reading.frameDuration)
            presentationTime = MediaTime(nanoseconds: overflow ? .max : nanoseconds)
        }
        if reading.loss.restore() {
            report(.restored(format: described))
        }
        let sequence = reading.sequence
        reading.sequence += 1
        let payload: SourceFrame.Payload
        switch event {
        case .frame(let bytes): payload = .raw(bytes, bytesPerRow: described.width)
        case .corrupt(let reason): payload = .corrupt(reason: reason)
        }
        return SourceFrame(payload: payload, sequence: sequence, presentationTime: presentationTime,
                           wallClockTime: .now(), format: described)
    }

    /// A network source lost: stop ffmpeg, report once, wait the backoff. Throws when
    /// reconnection is off, or when the pictures are over the budget.
    private func lose(_ error: MediaError, _ reading: inout Reading) throws(CaptureError) {
        stopProcess(&reading)
        if reading.isOverBudget { throw .input(error) }
        let reason: String
        if case .ffmpegFailed(_, let said, _) = error { reason = said } else { reason = error.description }
        guard options.reconnectsAfterLoss else { throw .device(.lost(path: sourceName, reason: reason)) }
        if reading.loss.lose() {
            report(.lost(reason: reason))
            reading.backoff.reset()
        }
        reading.heartbeat?.beat()
        _ = cancellation.sleep(milliseconds: reading.backoff.milliseconds)
        reading.heartbeat?.beat()
        reading.backoff.increase()
    }

    /// A network source's read waits until its watchdog stops a silent ffmpeg (at startup, the
    /// grace), then ffmpeg's exit (a second for its last words) and the longest backoff; a file's
    /// read returns as fast as ffmpeg decodes, or, paced (`-re`), after the file's own gap
    /// between two frames: a minute covers a timelapse's or a still stretch of variable-rate video.
    var longestWait: Double {
        guard isNetwork else { return options.pacing == .realTime ? Self.longestPacedGap : 0 }
        return max(options.watchdogTimeout, Self.startupGrace) + 1 + Backoff.capture.longest
    }

    func attach(_ heartbeat: CaptureHeartbeat) { reading.withLock { $0.heartbeat = heartbeat } }

    static let longestPacedGap = 60.0
}
