import ArgumentParser
import Dispatch
import Logging
import Lookout
import LookoutHTTP
import LookoutService
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Analyse a video stream and write detections as they are found (the default command).",
        discussion: """
            Files are read as fast as the detectors go, so every frame is analysed. With --realtime the \
            input is paced at its frame rate like a camera, and frames the detectors cannot keep up with \
            are dropped (counted in the summary).

            A service is described by a configuration file (--config FILE, or LOOKOUT_CONFIG): YAML whose \
            keys are these options' names, in sections, with a section per camera (see `lookout config` and \
            docs/configuration.md). Options given here override the file's values for every camera; \
            --input replaces the file's cameras. Every key a camera or the service takes is also an \
            option (--KEY VALUE; a true-or-false key as --KEY, or with no- before its name): \
            lookout.yml(5) describes each.

            SIGNALS
              SIGINT, SIGTERM, SIGQUIT  stop cleanly (exit 0) within 3 s: the
                  detections already made, the clips (closed) and the summary are
                  written; MQTT, hooks and the web server get 2 s from the signal,
                  side by side. A second one exits at once (130, 143, 131).
              SIGHUP   re-reads --config: cameras whose settings did not change go
                  on untouched; changed ones restart, new ones start, removed ones
                  stop. An invalid file changes nothing (one line says why).
              SIGUSR1  writes every input's summary to standard error; goes on.
              SIGUSR2, SIGALRM  ignored.
            """)

    @Option(name: .long, help: ArgumentHelp(
        "A configuration file (YAML) describing the service: its cameras and their settings. Default: $LOOKOUT_CONFIG when set.",
        valueName: "file"))
    var config: String?

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "What to analyse, as [NAME=]WHAT (repeatable, one pipeline each): a camera (/dev/videoN or a /dev/v4l/by-id path; default: the first camera), an MJPEG or Y4M file, - for standard input, a video file ffmpeg reads (MP4, MKV, ...), or a network camera (rtsp://, http://, ...). NAME (letters, digits, _ and -) is the input's `camera` in lines, MQTT topics and metrics; default: made from the path.",
        valueName: "[name=]path|url|-"))
    var input: [String] = []

    @OptionGroup(title: ConfigurationSection.capture.title) var camera: CameraOptions
    @OptionGroup(title: ConfigurationSection.detection.title) var detection: DetectionOptions
    @OptionGroup(title: ConfigurationSection.output.title) var output: OutputOptions
    @OptionGroup(title: ConfigurationSection.mqtt.title) var mqtt: MQTTOptions
    @OptionGroup(title: ConfigurationSection.hooks.title) var hooks: HookOptions
    @OptionGroup(title: ConfigurationSection.http.title) var web: HTTPOptions

    /// Every other option: a configuration key no option above declares, read and described
    /// from the key table (`ConfigurationOptions`, `RunHelp`). Shells complete every key's option
    /// from here (the declared ones twice, which they show once).
    @Argument(parsing: .allUnrecognized, help: .hidden, completion: .list(ConfigurationOptions.optionNames))
    var keyOptions: [String] = []

    /// The configuration file: --config, or $LOOKOUT_CONFIG.
    var configurationPath: String? {
        config ?? getenv("LOOKOUT_CONFIG").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func validate() throws {
        _ = try inputSpecifications()
        if let size = try camera.settings().size, !detection.pixelBudget.allows(width: size.width, height: size.height) {
            throw ValidationError("--size \(size.width)x\(size.height) is more than \(detection.pixelBudget.allowance).")
        }
        if let config, config.isEmpty { throw ValidationError("--config needs a file.") }
        let keys = try keySettings()
        if configurationPath == nil {
            try mqtt.checkStandingAlone()
            try web.checkStandingAlone()
            if let problem = ConfigurationOptions.keyWithoutItsSection(in: keys) { throw ValidationError(problem) }
        }
    }

    /// True when something (a file, a device, a directory) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return path.withPlatformPath { stat($0, &info) } == 0
    }

    /// The inputs as (camera name, path), names checked and unique; none when none are given.
    func inputSpecifications() throws -> [(name: String?, path: String)] {
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

    /// The settings of the options only the key table declares.
    func keySettings() throws -> ConfigurationSettings {
        do throws(ConfigurationOptions.Refusal) {
            return try ConfigurationOptions.settings(from: keyOptions)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Every option given, as settings over the file's (and every camera's).
    func overrides() throws -> ConfigurationSettings {
        var settings = try camera.settings()
        for group in [try detection.settings(), output.settings, mqtt.settings, hooks.settings, web.settings, try keySettings()] {
            settings = settings.overlaid(by: group)
        }
        return settings
    }

    /// The configuration: the file's (when there is one), its cameras replaced by --input's.
    func loadConfiguration() throws -> LookoutConfiguration {
        var configuration = try configurationPath.map(LookoutCLI.loadConfiguration) ?? LookoutConfiguration()
        let inputs = try inputSpecifications()
        if !inputs.isEmpty {
            // Unnamed: named from the path (a file: URL's own path), as the pipeline's source is.
            configuration.cameras = inputs.map { input in
                CameraConfiguration(name: input.name ?? CameraName.derived(from: (try? FFmpegInput.fileURLPath(input.path)) ?? input.path),
                                    input: input.path)
            }
        }
        return configuration
    }

    func run() async throws {
        let configuration = try loadConfiguration()
        let overrides = try overrides()
        // The file was checked alone; the options are checked together with it, by the file's
        // checks (settings that go together), and without a file in their own words.
        var merged = configuration
        merged.settings = configuration.settings.overlaid(by: overrides)
        let problems = ConfigurationCheck.problems(in: merged, file: (configurationPath ?? "") + " with the options given", checksFiles: false)
        if !problems.isEmpty {
            guard configurationPath == nil else { throw refuse(problems) }
            // A usage error is one line (Lookout.main): the first problem; the next shows once it is mended.
            throw ValidationError(problems[0].optionWords)
        }
        let effective = configuration.settings.overlaid(by: overrides).withDefaults
        showsLibraryDetail = effective.verbose == true
        DiagnosticOutput.level = effective.resolved(\.logLevel)
        let quiet = effective.quiet == true
        let logger = Logger(label: "lookout")
        let outputClosed = Atomic<Bool>(false)
        let stopService = Locked<Service?>(nil)
        let standardOutput = StandardOutputSink(fd: StandardDescriptors.outputDescriptor) {
            // The reader went away (`| head -1`): stop at once, quietly.
            outputClosed.store(true, ordering: .relaxed)
            stopService.withLock { $0 }?.stop()
        }
        var environment = Service.Environment(output: standardOutput, logger: logger)
        environment.notices = { if !quiet { logger.notice("\($0)") } }
        environment.standardInputIsClosed = StandardDescriptors.standardInputWasClosed
        if let node = getenv("LOOKOUT_UINPUT").map({ String(cString: $0) }), !node.isEmpty { environment.uinputPath = node }
        let service: Service
        do throws(ServiceError) {
            service = try Service(configuration: configuration, overrides: overrides, environment: environment)
        } catch {
            throw Self.failure(error)
        }
        do throws(ServiceError) {
            try await service.start()
        } catch {
            // What was made before the web server failed (the MQTT node, hook runners, a keyboard)
            // ends as at any other end: MQTT says goodbye instead of leaving its will to the broker.
            service.stop()
            await service.finish()
            throw Self.failure(error)
        }
        stopService.withLock { $0 = service }
        if outputClosed.load(ordering: .relaxed) { service.stop() }
        // Type=notify under systemd: readiness, status, watchdog, reloads, the stop.
        let notifier = ServiceNotifier.fromEnvironment(service: service, logger: logger)
        notifier?.start()
        if let server = service.webServer, !quiet {
            logger.notice("web view at http://\(WebServerAddress(host: server.configuration.address.host, port: server.port ?? 0))/")
        }

        let (stopAsked, askStop) = AsyncStream.makeStream(of: Void.self)
        let path = configurationPath
        StopSignals.handle(onStop: {
            notifier?.stopping()
            service.stop()
            askStop.yield()
        }, onStatistics: {
            // SIGUSR1, like dd: where every input stands, on standard error; the run goes on.
            for pipeline in service.pipelines { logger.notice("\(pipeline.statistics.text)") }
        }, onReload: reloadHandler(service, path: path, inputs: configuration.cameras, notifier: notifier, logger: logger))
        let outcomes = await service.run()
        // The rest of the run; true when it finished the service itself.
        func conclude() async throws -> Bool {
            // No outcome: a stop while no camera ran (a reload left none), not inputs that ended.
            let allEnded = !outcomes.isEmpty && outcomes.allSatisfy { if case .inputEnded = $0 { return true } else { return false } }
            let summaries = effective.stats == true
            if service.webServer != nil, allEnded, !outputClosed.load(ordering: .relaxed) {
                // A person may still be looking: serve the last picture and the totals until stopped.
                for pipeline in service.pipelines { writeSummary(pipeline.statistics, to: standardOutput, asLine: summaries, quiet: quiet) }
                if !quiet { logger.notice("input ended; the web view stays up until SIGINT, SIGTERM or SIGQUIT") }
                for await _ in stopAsked { break }
                return false
            }
            notifier?.stopping()

            if outputClosed.load(ordering: .relaxed) {
                if let failure = standardOutput.failure {
                    printDiagnostic("cannot write to standard output: \(failure)")
                    throw ExitCode(ExitStatus.failure)
                }
                return false
            }
            // Inputs that ended are not hurried: the outputs finish first (the keyboard types what
            // waits, MQTT delivers, hooks end), so the summary counts what they did. After a stop
            // signal the summary comes first, and the stop's one deadline bounds the outputs' waits.
            var finished = false
            if allEnded, !StopDeadline.shared.hasBegun {
                await service.finish()
                finished = true
            }
            for pipeline in service.pipelines { writeSummary(pipeline.statistics, to: standardOutput, asLine: summaries, quiet: quiet) }
            for outcome in outcomes { if case .failed(let error) = outcome { throw LookoutCLI.fail(error) } }
            return finished
        }
        let finished: Bool
        do {
            finished = try await conclude()
        } catch {
            StopSignals.outputFinished() // first: the outputs' waits have their own bound
            await service.finish()
            throw error
        }
        StopSignals.outputFinished()
        if !finished { await service.finish() }
    }

    private func reloadHandler(_ service: Service, path: String?, inputs: [CameraConfiguration], notifier: ServiceNotifier?,
                               logger: Logger) -> (@Sendable () -> Void)? {
        guard let path else { return nil }
        let reload = FileReload(path: path, cameras: input.isEmpty ? nil : inputs, notifier: notifier, logger: logger)
        let commandLine = (try? overrides()) ?? ConfigurationSettings()
        // One reload after the other; a burst of SIGHUPs during one is one more, of the newest file.
        let requests = ReloadRequests()
        Task {
            await requests.run {
                // A new log-level applies at once.
                await reload.run(service) { DiagnosticOutput.level = $0.settings.overlaid(by: commandLine).withDefaults.resolved(\.logLevel) }
            }
        }
        return { requests.ask() }
    }

    /// A service error in one sentence, and its exit code.
    static func failure(_ error: ServiceError) -> ExitCode {
        if case .capture(let capture) = error { return LookoutCLI.fail(capture) }
        printDiagnostic(CommandLineHints.sentence(for: error))
        switch error.kind {
        case .usage: return ExitCode(ExitStatus.usage)
        case .noInput: return ExitCode(ExitStatus.noInput)
        case .cannotCreate: return ExitCode(ExitStatus.cannotCreate)
        case .keyboardUnavailable: return ExitCode(ExitStatus.keyboardUnavailable)
        case .failure: return ExitCode(ExitStatus.failure)
        }
    }

    /// The end-of-run summary: a `stats` line on standard output, or a sentence on standard error.
    private func writeSummary(_ summary: StatisticsSnapshot, to standardOutput: StandardOutputSink, asLine: Bool, quiet: Bool) {
        if asLine {
            standardOutput.write([summary.jsonLine()])
        } else if !quiet {
            printDiagnostic(summary.text, level: .notice)
        }
    }
}
