import ArgumentParser
import Dispatch
import Lookout
import LookoutHTTP
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
    @OptionGroup(title: "Snapshots") var snapshots: SnapshotOptions
    @OptionGroup(title: "Recordings") var recordings: RecordingOptions
    @OptionGroup(title: "Web view and API") var web: HTTPOptions

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
        let session = CaptureSession()
        let metadata: MetadataOutput
        let path: String
        do {
            path = try addInput(to: session)
            // A camera, or a file paced like one: the motion gate is on by default.
            let isRealTime = realtime || !(session.inputs.first is AssetReaderInput)
            metadata = try detection.makeMetadataOutput(in: session, profile: .video, isRealTime: isRealTime,
                                                        faceTrackRetention: events.faceLeave.time)
        } catch let error as CaptureError {
            throw fail(error)
        } catch let error as DeviceError {
            throw fail(.device(error))
        }

        var configuration = DetectionPipeline.Configuration(source: path)
        configuration.lineFormat = output.format
        configuration.linesAreEvents = events.events == .changes
        configuration.eventSettings = events.settings
        let quiet = output.quiet
        let pipeline = DetectionPipeline(session: session, metadataOutput: metadata, configuration: configuration,
                                         notices: { if !quiet { printDiagnostic($0) } })
        let outputClosed = Atomic<Bool>(false)
        let standardOutput = StandardOutputSink(fd: StandardDescriptors.outputDescriptor) {
            // The reader went away (`| head -1`): stop at once, quietly.
            outputClosed.store(true, ordering: .relaxed)
            pipeline.stop()
        }
        pipeline.addSink(standardOutput)
        // The recorder goes before the other sinks: its `recording` lines reach them all.
        do {
            _ = try recordings.makeRecorder(pipeline: pipeline, diagnostics: { printDiagnostic($0) })
        } catch {
            throw fail(error)
        }
        try addEventSinks(to: pipeline, source: path)
        let server = try web.makeServer(pipeline: pipeline, snapshotDirectory: snapshots.snapshots,
                                        recordingDirectory: recordings.record)
        if let server {
            do {
                try server.start()
            } catch {
                printDiagnostic(error.description)
                throw ExitCode(ExitStatus.failure)
            }
            if !output.quiet { printDiagnostic("web view at http://\(WebServerAddress(host: server.configuration.address.host, port: server.port ?? 0))/") }
        }

        let control = DispatchQueue(label: "lookout.control")
        let stopAsked = DispatchSemaphore(value: 0)
        let signals = StopSignals(queue: control) {
            pipeline.stop()
            stopAsked.signal()
        }
        let outcome = pipeline.run()
        defer { server?.stop() }
        defer { pipeline.finishSinks() }
        defer { signals.outputFinished() } // runs first: the hooks' wait has its own bound
        if server != nil, case .inputEnded = outcome, !outputClosed.load(ordering: .relaxed) {
            // A person may still be looking: serve the last picture and the totals until stopped.
            writeSummary(pipeline.statistics, to: standardOutput)
            if !output.quiet { printDiagnostic("input ended; the web view stays up until SIGINT or SIGTERM") }
            stopAsked.wait()
            signals.cancel()
            return
        }
        signals.cancel()

        if outputClosed.load(ordering: .relaxed) {
            if let failure = standardOutput.failure {
                printDiagnostic("cannot write to standard output: \(failure)")
                throw ExitCode(ExitStatus.failure)
            }
            return
        }
        if case .failed(let error) = outcome { throw fail(error) }
        writeSummary(pipeline.statistics, to: standardOutput)
    }

    /// The end-of-run summary: a `stats` line on standard output, or a sentence on standard error.
    private func writeSummary(_ summary: StatisticsSnapshot, to standardOutput: StandardOutputSink) {
        if output.stats {
            standardOutput.write([summary.jsonLine()])
        } else if !output.quiet {
            printDiagnostic(summary.text)
        }
    }

    /// Adds the camera or file named by --input (the first camera by default); returns its name.
    private func addInput(to session: CaptureSession) throws -> String {
        if let input, !Self.isDevice(input) {
            if input == "-", StandardDescriptors.standardInputWasClosed {
                printDiagnostic("standard input is closed; pipe a stream into lookout or name a file with --input")
                throw ExitCode(ExitStatus.noInput)
            }
            if camera.isCustomized { printDiagnostic("camera options are ignored for \(input == "-" ? "standard input" : input)") }
            try session.addInput(try AssetReaderInput(path: input, pacing: realtime ? .realTime : .asFastAsPossible,
                                                      frameRate: fps, pixelBudget: detection.pixelBudget))
            return input
        }
        let device: CaptureDevice
        if let input {
            do { device = try CaptureDevice(path: input) } catch { throw CaptureError.device(error) }
        } else {
            guard let first = CaptureDevice.default(for: .video) else { throw CaptureError.device(.noCamera) }
            device = first
        }
        let deviceInput = try camera.makeInput(device: device, frameRate: fps, pixelBudget: detection.pixelBudget)
        if !output.quiet {
            printDiagnostic("\(device.uniqueID) (\(device.localizedName)): streaming \(deviceInput.formatDescription)")
        }
        try session.addInput(deviceInput)
        return input ?? device.uniqueID
    }

    /// MQTT, hooks and snapshots, as asked for.
    private func addEventSinks(to pipeline: DetectionPipeline, source: String) throws {
        let diagnostics: @Sendable (String) -> Void = { printDiagnostic($0) }
        let runners: (code: HookRunner?, presence: HookRunner?)
        do {
            runners = try hooks.makeRunners(diagnostics: diagnostics)
        } catch let error as ValidationError {
            printDiagnostic(error.message)
            throw ExitCode(ExitStatus.usage)
        }
        var mqttSink: MQTTEventSink?
        do throws(MQTTError) {
            if let configuration = try mqtt.configuration() {
                if mqtt.passwordInURL {
                    printDiagnostic("warning: the MQTT password in --mqtt is visible to every user of this machine; use --mqtt-password-file or LOOKOUT_MQTT_PASSWORD")
                }
                mqttSink = MQTTEventSink(publisher: try MQTTEventPublisher(configuration: configuration, diagnostics: diagnostics),
                                         diagnostics: diagnostics)
            }
        } catch {
            printDiagnostic(error.description)
            switch error {
            case .invalidURL: throw ExitCode(ExitStatus.usage)
            case .unreadableFile: throw ExitCode(ExitStatus.noInput)
            case .library, .libraryMissing: throw ExitCode(ExitStatus.failure)
            }
        }
        // The snapshot writer feeds MQTT, so it goes first: sinks finish in the order they were added.
        if let writer = snapshots.makeWriter(diagnostics: diagnostics) {
            if let mqttSink { writer.setWrittenHandler { _, jpeg in mqttSink.publishSnapshot(jpeg) } }
            pipeline.addSink(writer)
        }
        if let mqttSink { pipeline.addSink(mqttSink) }
        if runners.code != nil || runners.presence != nil {
            pipeline.addSink(HookEventSink(codeHook: runners.code, presenceHook: runners.presence, source: source,
                                           diagnostics: diagnostics))
        }
    }
}
