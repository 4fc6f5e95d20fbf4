import ArgumentParser
import Dispatch
import Lookout
import LookoutService
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
            are dropped (counted in the summary).

            SIGNALS
              SIGINT, SIGTERM, SIGQUIT  stop cleanly (exit 0) within 3 s: the
                  detections already made, the clips (closed) and the summary are
                  written; MQTT, hooks and the web server get 2 s from the signal,
                  side by side. A second one exits at once (130, 143, 131).
              SIGUSR1  writes every input's summary to standard error; goes on.
              SIGHUP   reserved for reloading the configuration: logged, ignored.
              SIGUSR2, SIGALRM  ignored.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "What to analyse, as [NAME=]WHAT (repeatable, one pipeline each): a camera (/dev/videoN or a /dev/v4l/by-id path; default: the first camera), an MJPEG or Y4M file, - for standard input, a video file ffmpeg reads (MP4, MKV, ...), or a network camera (rtsp://, http://, ...). NAME (letters, digits, _ and -) is the input's `camera` in lines, MQTT topics and metrics; default: made from the path.",
        valueName: "[name=]path|url|-"))
    var input: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Hardware decoding for inputs read through ffmpeg (its -hwaccel: auto, vaapi, cuda, ...).", valueName: "api"))
    var hwaccel: String?

    @Flag(name: .long, help: "Behave like a camera: drop frames the detectors cannot keep up with; a file is paced at its frame rate, a pipe taken as it comes.")
    var realtime = false

    static let fpsRange = ValueRange.number(FrameRate.validRange)
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Camera frame rate to ask for (\(RunCommand.fpsRange.text); default 30 where offered); for files, the rate that times MJPEG input (default 30) or overrides a Y4M header.",
        valueName: "fps"), transform: { try RunCommand.fpsRange.parse($0) })
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
        _ = try inputSpecifications()
        if let hwaccel, hwaccel.isEmpty || hwaccel.hasPrefix("-") { throw ValidationError("--hwaccel takes an ffmpeg -hwaccel name (auto, vaapi, cuda, ...).") }
        if let size = try camera.parsedSize(), !detection.pixelBudget.allows(width: size.width, height: size.height) {
            throw ValidationError("--size \(size.width)x\(size.height) is more than the \(detection.pixelBudget.maximumPixels) pixels --max-pixels allows.")
        }
    }

    /// True when `path` is a device node (a camera), not a file or pipe.
    static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return path != "-" && path.withPlatformPath({ stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    /// True when something (a file, a device, a directory) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return path.withPlatformPath { stat($0, &info) } == 0
    }

    /// The inputs as (camera name, path), names checked and unique; the first camera when none.
    func inputSpecifications() throws -> [(name: String?, path: String)] {
        guard !input.isEmpty else { return [(nil, "")] }
        var seen: Set<String> = []
        var result: [(name: String?, path: String)] = []
        for argument in input {
            let (name, path) = CameraName.split(argument)
            // NAME=PATH with a name that breaks the rule (`..`, `a/b`, `café`) is refused as a name,
            // not opened as a path: only a URL or an existing file keeps a '=' without a valid name.
            if name == nil, let equals = argument.firstIndex(of: "="), !FFmpegInput.isURL(argument), !Self.exists(argument) {
                throw ValidationError("--input: camera name '\(argument[..<equals])' is not allowed; a name is 1 to \(CameraName.maximumLength) letters, digits, _ and - (a path that holds '=' is given as NAME=PATH)")
            }
            guard !path.isEmpty else { throw ValidationError("--input \(argument) names no input.") }
            let camera = name ?? CameraName.derived(from: path)
            guard seen.insert(camera).inserted else {
                throw ValidationError("two inputs are named '\(camera)'; name them with --input NAME=PATH (letters, digits, _ and -).")
            }
            result.append((name, path))
        }
        if result.filter({ $0.path == "-" }).count > 1 { throw ValidationError("only one input can be standard input (-).") }
        return result
    }

    func run() throws {
        showsLibraryDetail = output.verbose
        let specifications = try inputSpecifications()
        let group = PipelineGroup()
        let outputClosed = Atomic<Bool>(false)
        let standardOutput = StandardOutputSink(fd: StandardDescriptors.outputDescriptor) {
            // The reader went away (`| head -1`): stop at once, quietly.
            outputClosed.store(true, ordering: .relaxed)
            group.stop()
        }
        let diagnostics: @Sendable (String) -> Void = { printDiagnostic($0) }
        let shared = try makeSharedSinks(diagnostics: diagnostics)
        var cameras: [WebServer.Camera] = []
        for specification in specifications {
            let pipeline = try makePipeline(specification)
            pipeline.addSink(standardOutput)
            let camera = pipeline.configuration.camera
            // Several cameras keep their files apart: DIR/<camera>/.
            let snapshotDirectory = subdirectory(snapshots.snapshots, camera: camera, several: specifications.count > 1)
            let recordingDirectory = subdirectory(recordings.record, camera: camera, several: specifications.count > 1)
            // The recorder goes before the other sinks: its `recording` lines reach them all.
            do {
                _ = try recordings.makeRecorder(pipeline: pipeline, directory: recordingDirectory, diagnostics: diagnostics)
            } catch {
                throw fail(error)
            }
            try addEventSinks(to: pipeline, shared: shared, snapshotDirectory: snapshotDirectory)
            cameras.append(WebServer.Camera(pipeline: pipeline, snapshotDirectory: snapshotDirectory, recordingDirectory: recordingDirectory))
            group.add(pipeline)
        }
        let server = try web.makeServer(cameras: cameras)
        if let server {
            do {
                try server.start()
            } catch {
                printDiagnostic(error.description)
                throw ExitCode(ExitStatus.failure)
            }
            if !output.quiet { printDiagnostic("web view at http://\(WebServerAddress(host: server.configuration.address.host, port: server.port ?? 0))/") }
        }

        let stopAsked = DispatchSemaphore(value: 0)
        StopSignals.handle(onStop: {
            group.stop()
            stopAsked.signal()
        }, onStatistics: {
            // SIGUSR1, like dd: where every input stands, on standard error; the run goes on.
            for pipeline in group.pipelines { printDiagnostic(pipeline.statistics.text) }
        })
        let outcomes = group.run()
        defer { Self.finishOutputs(group: group, server: server, node: shared.node) }
        defer { StopSignals.outputFinished() } // runs first: the outputs' waits have their own bound
        let allEnded = outcomes.allSatisfy { if case .inputEnded = $0 { return true } else { return false } }
        if server != nil, allEnded, !outputClosed.load(ordering: .relaxed) {
            // A person may still be looking: serve the last picture and the totals until stopped.
            for pipeline in group.pipelines { writeSummary(pipeline.statistics, to: standardOutput) }
            if !output.quiet { printDiagnostic("input ended; the web view stays up until SIGINT, SIGTERM or SIGQUIT") }
            stopAsked.wait()
            return
        }

        if outputClosed.load(ordering: .relaxed) {
            if let failure = standardOutput.failure {
                printDiagnostic("cannot write to standard output: \(failure)")
                throw ExitCode(ExitStatus.failure)
            }
            return
        }
        for pipeline in group.pipelines { writeSummary(pipeline.statistics, to: standardOutput) }
        for outcome in outcomes { if case .failed(let error) = outcome { throw fail(error) } }
    }

    /// Lets MQTT, hooks and the web server finish, all at the same time: after a stop signal,
    /// each waits until the stop's one deadline (`StopDeadline`) at most. The MQTT node goes
    /// offline last, after its cameras.
    private static func finishOutputs(group: PipelineGroup, server: WebServer?, node: MQTTNode?) {
        let serverStopped = DispatchGroup()
        if let server { DispatchQueue(label: "lookout.web.stop").async(group: serverStopped) { server.stop() } }
        group.finishSinks()
        node?.stop()
        serverStopped.wait()
    }

    /// `directory`, or its subfolder for `camera` when there are several cameras: made by the
    /// snapshot writer and the recorder, and never reached through a link (`Folder`).
    private func subdirectory(_ directory: String?, camera: String, several: Bool) -> Folder? {
        guard let directory else { return nil }
        return Folder(path: directory, subfolder: several ? camera : nil)
    }

    /// One input's session, metadata output and pipeline.
    private func makePipeline(_ specification: (name: String?, path: String)) throws -> DetectionPipeline {
        let session = CaptureSession()
        let metadata: MetadataOutput
        let source: String
        do {
            source = try addInput(specification.path, to: session)
            // A camera, a network source, or a file paced like one: the motion gate is on by default.
            metadata = try detection.makeMetadataOutput(in: session, profile: .video, isRealTime: realtime || session.inputs.first?.isRealTime == true,
                                                        faceTrackRetention: events.faceLeave.time)
        } catch let error as CaptureError {
            throw fail(error)
        } catch let error as DeviceError {
            throw fail(.device(error))
        }
        // Unnamed: made from `source`, the name checked for uniqueness (a URL's without its password).
        var configuration = DetectionPipeline.Configuration(source: source, camera: specification.name)
        configuration.lineFormat = output.format
        configuration.linesAreEvents = events.events == .changes
        configuration.eventSettings = events.settings
        let quiet = output.quiet
        return DetectionPipeline(session: session, metadataOutput: metadata, configuration: configuration,
                                 notices: { if !quiet { printDiagnostic($0) } })
    }

    /// The end-of-run summary: a `stats` line on standard output, or a sentence on standard error.
    private func writeSummary(_ summary: StatisticsSnapshot, to standardOutput: StandardOutputSink) {
        if output.stats {
            standardOutput.write([summary.jsonLine()])
        } else if !output.quiet {
            printDiagnostic(summary.text)
        }
    }

    /// Adds the camera, file or URL `input` names (the first camera for ""); returns its name
    /// for lines (a URL without its password).
    private func addInput(_ named: String, to session: CaptureSession) throws -> String {
        let wantsPictures = web.http != nil || snapshots.snapshots != nil || recordings.record != nil
        // A file: URL is the file it names (an MJPEG or Y4M file is then read by Lookout itself).
        let input: String
        do { input = try FFmpegInput.fileURLPath(named) ?? named } catch { throw CaptureError.input(error) }
        if FFmpegInput.isURL(input) {
            if camera.isCustomized && !camera.appliesToNetworkSources { printDiagnostic("camera options other than --watchdog and --exit-on-loss are ignored for \(FFmpegInput.redacted(input))") }
            try session.addInput(try FFmpegInput(path: input, options: ffmpegOptions(carriesChroma: wantsPictures), pixelBudget: detection.pixelBudget))
            return FFmpegInput.redacted(input)
        }
        if !input.isEmpty, !Self.isDevice(input) {
            if input == "-", StandardDescriptors.standardInputWasClosed {
                printDiagnostic("standard input is closed; pipe a stream into lookout or name a file with --input")
                throw ExitCode(ExitStatus.noInput)
            }
            if camera.isCustomized { printDiagnostic("camera options are ignored for \(input == "-" ? "standard input" : input)") }
            let reader: CaptureInput
            do throws(CaptureError) {
                reader = try AssetReaderInput(path: input, pacing: realtime ? .realTime : .asFastAsPossible,
                                              frameRate: fps, pixelBudget: detection.pixelBudget)
            } catch {
                // Not MJPEG or Y4M: a container ffmpeg reads (MP4, MKV, ...).
                guard Self.isUnrecognizedStream(error), input != "-" else { throw error }
                reader = try FFmpegInput(path: input, options: ffmpegOptions(carriesChroma: wantsPictures), pixelBudget: detection.pixelBudget)
            }
            try session.addInput(reader)
            return input
        }
        let device: CaptureDevice
        if !input.isEmpty {
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
        return input.isEmpty ? device.uniqueID : input
    }

    private static func isUnrecognizedStream(_ error: CaptureError) -> Bool {
        if case .input(.unrecognizedStream) = error { return true }
        return false
    }

    private func ffmpegOptions(carriesChroma: Bool) -> FFmpegInput.Options {
        var options = FFmpegInput.Options()
        options.carriesChroma = carriesChroma
        options.hardwareAcceleration = hwaccel
        options.watchdogTimeout = camera.watchdog
        options.reconnectsAfterLoss = !camera.exitOnLoss
        options.pacing = realtime ? .realTime : .asFastAsPossible
        return options
    }

    /// What every camera shares: the MQTT node, the hook runners.
    private struct SharedSinks {
        var node: MQTTNode?
        var codeHook: HookRunner?
        var presenceHook: HookRunner?
    }

    private func makeSharedSinks(diagnostics: @escaping @Sendable (String) -> Void) throws -> SharedSinks {
        var shared = SharedSinks()
        do {
            (shared.codeHook, shared.presenceHook) = try hooks.makeRunners(diagnostics: diagnostics)
        } catch let error as ValidationError {
            printDiagnostic(error.message)
            throw ExitCode(ExitStatus.usage)
        }
        let password = try mqtt.credentials()
        do throws(MQTTError) {
            if let configuration = try mqtt.configuration(password: password) {
                if mqtt.passwordInURL {
                    printDiagnostic("warning: the MQTT password in --mqtt is visible to every user of this machine; use --mqtt-password-file or LOOKOUT_MQTT_PASSWORD")
                }
                shared.node = try MQTTNode(configuration: configuration, diagnostics: diagnostics)
            }
        } catch {
            throw mqttFailure(error)
        }
        return shared
    }

    private func mqttFailure(_ error: MQTTError) -> ExitCode {
        printDiagnostic(error.description)
        switch error {
        case .invalidURL: return ExitCode(ExitStatus.usage)
        case .unreadableFile: return ExitCode(ExitStatus.noInput)
        case .library, .libraryMissing: return ExitCode(ExitStatus.failure)
        }
    }

    /// A camera's MQTT connection, hooks and snapshots, as asked for.
    private func addEventSinks(to pipeline: DetectionPipeline, shared: SharedSinks, snapshotDirectory: Folder?) throws {
        let diagnostics: @Sendable (String) -> Void = { printDiagnostic($0) }
        let camera = pipeline.configuration.camera
        var mqttSink: MQTTEventSink?
        if let node = shared.node {
            do throws(MQTTError) { mqttSink = try node.makeSink(camera: camera) } catch { throw mqttFailure(error) }
        }
        // The snapshot writer feeds MQTT, so it goes first: sinks finish in the order they were added.
        if let writer = snapshots.makeWriter(directory: snapshotDirectory, diagnostics: diagnostics) {
            if let mqttSink { writer.setWrittenHandler { _, jpeg in mqttSink.publishSnapshot(jpeg) } }
            pipeline.addSink(writer)
        }
        if let mqttSink { pipeline.addSink(mqttSink) }
        if shared.codeHook != nil || shared.presenceHook != nil {
            pipeline.addSink(HookEventSink(codeHook: shared.codeHook, presenceHook: shared.presenceHook,
                                           source: pipeline.configuration.source, camera: camera, diagnostics: diagnostics))
        }
    }
}
