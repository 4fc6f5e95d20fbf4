import ArgumentParser
import Dispatch
import Lookout
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Analyse a video stream and write detections as they are found (the default command).",
        discussion: """
            Files are read as fast as the detectors go, so every frame is analysed. With --realtime the \
            input is paced at its frame rate like a camera, and frames the detectors cannot keep up with \
            are dropped (counted in the summary). SIGINT or SIGTERM stops cleanly: every detection \
            already made is written before exit.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "What to analyse: a camera (/dev/videoN or a /dev/v4l/by-id path; default: the first camera), an MJPEG or Y4M file, or - for standard input.",
        valueName: "path|-"))
    var input: String?

    @Flag(name: .long, help: "Behave like a camera: drop frames the detectors cannot keep up with; a file is paced at its frame rate, a pipe taken as it comes.")
    var realtime = false

    @Option(name: .long, help: ArgumentHelp(
        "Camera frame rate to ask for (default 30 where offered); for files, the rate that times MJPEG input (default 30) or overrides a Y4M header.",
        valueName: "fps"))
    var fps: Double?

    @OptionGroup(title: "Camera") var camera: CameraOptions
    @OptionGroup(title: "Detection") var detection: DetectionOptions
    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "Events") var events: EventOptions
    @OptionGroup(title: "MQTT") var mqtt: MQTTOptions
    @OptionGroup(title: "Hooks") var hooks: HookOptions

    mutating func validate() throws {
        if let fps, !FrameRate.validRange.contains(fps) { throw ValidationError("--fps must be between 0.001 and 1000.") }
        if let size = try camera.parsedSize(), !detection.pixelBudget.allows(width: size.width, height: size.height) {
            throw ValidationError("--size \(size.width)x\(size.height) is more than the \(detection.pixelBudget.maximumPixels) pixels --max-pixels allows.")
        }
    }

    /// True when `path` is a device node (a camera), not a file or pipe.
    static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return path != "-" && path.withPlatformPath({ stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    func run() throws {
        showsLibraryDetail = output.verbose
        let started = MonotonicClock.nanoseconds()
        let session = CaptureSession()
        let metadata: MetadataOutput
        let path: String
        do {
            if let input, !Self.isDevice(input) {
                path = input
                if input == "-", StandardDescriptors.standardInputWasClosed {
                    printDiagnostic("standard input is closed; pipe a stream into lookout or name a file with --input")
                    throw ExitCode(ExitStatus.noInput)
                }
                if camera.isCustomized { printDiagnostic("camera options are ignored for \(input == "-" ? "standard input" : input)") }
                try session.addInput(try AssetReaderInput(path: input, pacing: realtime ? .realTime : .asFastAsPossible,
                                                          frameRate: fps, pixelBudget: detection.pixelBudget))
            } else {
                let device: CaptureDevice
                if let input {
                    do { device = try CaptureDevice(path: input) } catch { throw CaptureError.device(error) }
                } else {
                    guard let first = CaptureDevice.default(for: .video) else { throw CaptureError.device(.noCamera) }
                    device = first
                }
                path = input ?? device.uniqueID
                let deviceInput = try camera.makeInput(device: device, frameRate: fps, pixelBudget: detection.pixelBudget)
                if !output.quiet {
                    printDiagnostic("\(device.uniqueID) (\(device.localizedName)): streaming \(deviceInput.formatDescription)")
                }
                try session.addInput(deviceInput)
            }
            metadata = try detection.makeMetadataOutput(in: session, faceTrackRetention: events.faceLeave.time)
        } catch let error as CaptureError {
            throw fail(error)
        } catch let error as DeviceError {
            throw fail(.device(error))
        }

        let router = try makeEventRouter(source: path)
        let outputClosed = Atomic<Bool>(false)
        let printer = DetectionPrinter(format: output.format, source: path, sink: LineSink(fd: StandardDescriptors.outputDescriptor),
                                       events: router) {
            // The reader went away (`| head -1`): stop at once, quietly.
            outputClosed.store(true, ordering: .relaxed)
            DispatchQueue.global().async { session.stopRunning() }
        }
        metadata.setMetadataObjectsDelegate(printer, queue: printer.queue)

        let control = DispatchQueue(label: "lookout.control")
        let stopped = DispatchSemaphore(value: 0)
        let runtimeError = Locked<CaptureError?>(nil)
        session.setEventHandler(queue: control) { event in
            switch event {
            case .runtimeError(let error):
                runtimeError.withLock { if $0 == nil { $0 = error } }
                DispatchQueue.global().async { session.stopRunning() }
            case .inputDidEnd:
                break
            case .wasInterrupted(let reason):
                printer.queue.async {
                    if output.format == .json { printer.writeLine(InterruptionLineEncoder.lost(source: path, reason: reason)) }
                    printer.interrupted()
                    if !output.quiet { printDiagnostic("\(path): camera lost (\(reason)); reconnecting") }
                }
            case .interruptionEnded(let format):
                printer.queue.async {
                    if output.format == .json { printer.writeLine(InterruptionLineEncoder.found(source: path, format: format)) }
                    if !output.quiet { printDiagnostic("\(path): camera back, streaming \(format)") }
                }
            case .framesDamaged(let count, let reason):
                if !output.quiet { printDiagnostic("\(path): \(count) damaged frames in a row (the last: \(reason)); still reading") }
            case .didStopRunning:
                stopped.signal()
            }
        }
        let signals = StopSignals(queue: control) {
            DispatchQueue.global().async { session.stopRunning() }
        }

        router?.mqtt?.start()
        session.startRunning()
        stopped.wait()
        signals.cancel()
        printer.queue.sync {}
        defer { finishEvents(router) }
        defer { signals.outputFinished() } // runs first: the hooks' wait has its own bound

        if outputClosed.load(ordering: .relaxed) {
            if let failure = printer.sink.failure {
                printDiagnostic("cannot write to standard output: \(failure)")
                throw ExitCode(ExitStatus.failure)
            }
            return
        }
        if let error = runtimeError.withLock({ $0 }) {
            if case .device(.lost(_, let reason)) = error {
                printer.queue.sync {
                    if output.format == .json { printer.writeLine(InterruptionLineEncoder.lost(source: path, reason: reason)) }
                    printer.interrupted()
                }
            }
            throw fail(error)
        }
        let statistics = metadata.statistics
        var summary = RunSummary(
            source: path, framesRead: session.statistics.framesRead, framesAnalysed: statistics.framesAnalysed,
            drops: statistics.drops, detections: statistics.objectsByType,
            elapsedSeconds: Double(MonotonicClock.nanoseconds() - started) / 1e9)
        summary.faceAnalyses = statistics.faceAnalyses
        summary.faceFramesLate = statistics.faceFramesLate
        summary.framesUnchanged = statistics.framesUnchanged
        summary.framesNotDecoded = session.statistics.framesNotDecoded
        summary.framesDecodedAtHalfSize = session.statistics.framesDecodedAtHalfSize
        summary.timings = [("decode", session.statistics.decodeTimes), ("codes", statistics.codeTimes),
                           ("faces", statistics.faceTimes), ("code_latency", printer.queue.sync { printer.codeLatency })]
        if output.stats {
            printer.queue.sync { printer.writeLine(summary.jsonLine()) }
        } else if !output.quiet {
            printDiagnostic(summary.text)
        }
    }

    /// The event router, when events are wanted on standard output, over MQTT or by hooks.
    private func makeEventRouter(source: String) throws -> EventRouter? {
        let diagnostics: @Sendable (String) -> Void = { printDiagnostic($0) }
        let runners: (code: HookRunner?, presence: HookRunner?)
        do {
            runners = try hooks.makeRunners(diagnostics: diagnostics)
        } catch let error as ValidationError {
            printDiagnostic(error.message)
            throw ExitCode(ExitStatus.usage)
        }
        var publisher: MQTTEventPublisher?
        do throws(MQTTError) {
            if let configuration = try mqtt.configuration() {
                if mqtt.passwordInURL {
                    printDiagnostic("warning: the MQTT password in --mqtt is visible to every user of this machine; use --mqtt-password-file or LOOKOUT_MQTT_PASSWORD")
                }
                publisher = try MQTTEventPublisher(configuration: configuration, diagnostics: diagnostics)
            }
        } catch {
            printDiagnostic(error.description)
            switch error {
            case .invalidURL: throw ExitCode(ExitStatus.usage)
            case .unreadableFile: throw ExitCode(ExitStatus.noInput)
            case .library, .libraryMissing: throw ExitCode(ExitStatus.failure)
            }
        }
        guard events.events == .changes || publisher != nil || runners.code != nil || runners.presence != nil else { return nil }
        return EventRouter(settings: events.settings, source: source, writesLines: events.events == .changes,
                           mqtt: publisher, codeHook: runners.code, presenceHook: runners.presence)
    }

    /// Lets running hooks finish and delivers what MQTT still holds, before exit.
    private func finishEvents(_ router: EventRouter?) {
        guard let router else { return }
        for hook in [router.codeHook, router.presenceHook].compactMap({ $0 }) {
            if !hook.waitUntilIdle(timeout: hook.timeout + 2) {
                printDiagnostic("hook \(hook.name): still running at exit")
            }
        }
        if let mqtt = router.mqtt {
            let undelivered = mqtt.stop()
            if undelivered > 0 {
                printDiagnostic("MQTT: \(undelivered) event\(undelivered == 1 ? "" : "s") not delivered (the broker is unreachable)")
            }
        }
    }
}
