import Dispatch
import Lookout
import LookoutHTTP
import Logging

/// A whole Lookout service built from one `LookoutConfiguration`: a pipeline per camera (session,
/// input, metadata output, event rules), each with its sinks in a defined order, the MQTT node,
/// the hook runners, the web server and the per-camera folders. `run()` runs every camera side
/// by side; `reload(_:)` moves to a new configuration, restarting only the cameras whose
/// settings changed.
///
/// The order of a camera's sinks (each gets a frame's results after the one before it, and
/// finishes after it): standard output; the clip recorder (its `recording` lines then reach the
/// others); the snapshot writer (it names the snapshot an event line carries, and hands the JPEG
/// to MQTT); MQTT; hooks; the web server's event stream.
public final class Service: @unchecked Sendable {
    /// The parts every camera shares.
    private struct Shared {
        var settings: ConfigurationSettings
        var node: MQTTNode?
        var codeHook: HookRunner?
        var presenceHook: HookRunner?
        var server: WebServer?
        /// The node's configuration: the node itself connects only when the parts it replaces
        /// are gone (a reload), so two nodes never hold the same client ID.
        var mqtt: MQTTConfiguration?
        /// The state directory's outbox, locked (`outbox/lock`) before any broker connection and
        /// held while the service uses it: a second process on it is refused before it connects.
        var outbox: OutboxDirectory?

        var hooks: [HookRunner] { [codeHook, presenceHook].compactMap { $0 } }
    }

    /// A camera being run.
    private struct RunningCamera {
        /// Its configuration, its settings the effective ones (what a reload compares).
        var configuration: CameraConfiguration
        var pipeline: DetectionPipeline
        var mqttSink: MQTTEventSink?
        /// Its files go to DIR/<camera> (several cameras) rather than DIR.
        var usesSubfolders: Bool
    }

    private struct State {
        var configuration: LookoutConfiguration
        var shared: Shared
        var cameras: [RunningCamera]
        var started = false
        /// `stop()` was called or `run()` returned: reloads are refused from then on.
        var closed = false
        /// A reload left no camera running (each failed to open): the group is held so that the
        /// service idles, its web server answering, until a reload brings a camera or a stop.
        var idling = false
    }

    public let environment: Environment
    /// Settings over every camera's and the globals' (the command line's options).
    public let overrides: ConfigurationSettings
    private let group = PipelineGroup()
    private let state: Locked<State>
    private let reloadStatistics = ReloadStatistics()
    /// One reload at a time.
    private let reloading = Locked(())

    /// Builds every part of `configuration` (nothing runs yet). A configuration without cameras
    /// runs the first camera (/dev/video0 or the like) as "video0".
    public init(configuration: LookoutConfiguration, overrides: ConfigurationSettings = ConfigurationSettings(),
                environment: Environment) throws(ServiceError) {
        self.environment = environment
        self.overrides = overrides
        let configuration = Self.withDefaultCamera(configuration)
        var shared = try Self.makeShared(configuration, overrides: overrides, environment: environment)
        try Self.connect(&shared, environment: environment)
        var cameras: [RunningCamera] = []
        do throws(ServiceError) {
            for camera in configuration.cameras {
                cameras.append(try Self.makeCamera(camera, of: configuration, overrides: overrides, shared: shared, environment: environment))
            }
        } catch {
            shared.node?.stop()
            throw error
        }
        state = Locked(State(configuration: configuration, shared: shared, cameras: cameras))
        for camera in cameras {
            camera.pipeline.addReporter(reloadStatistics)
            group.add(camera.pipeline)
        }
    }

    /// The configuration running (as given, not the effective one).
    public var configuration: LookoutConfiguration { state.withLock { $0.configuration } }

    /// The cameras' pipelines, in order.
    public var pipelines: [DetectionPipeline] { state.withLock { $0.cameras.map(\.pipeline) } }

    /// The web server, when the configuration asks for one.
    public var webServer: WebServer? { state.withLock { $0.shared.server } }

    public var reloadCounts: ReloadCounts { reloadStatistics.current }

    /// Starts the web server (the cameras start with `run()`).
    public func start() throws(ServiceError) {
        let server = state.withLock { state -> WebServer? in
            state.started = true
            return state.shared.server
        }
        if let server {
            do throws(WebServerError) { try server.start() } catch { throw .web(error) }
        }
    }

    /// Runs every camera until each has ended or `stop()` is called (cameras added by a reload
    /// too); the outcomes of the cameras running at the end, in order.
    public func run() -> [DetectionPipeline.Outcome] {
        let outcomes = group.run()
        state.withLock { $0.closed = true }
        return outcomes
    }

    /// Stops every camera without waiting; `run()` then returns. Reloads are refused from now on.
    public func stop() {
        let idled = state.withLock { state -> Bool in
            state.closed = true
            defer { state.idling = false }
            return state.idling
        }
        group.stop()
        if idled { group.release() }
    }

    /// Lets MQTT, hooks and the web server finish, all at the same time: after a stop signal,
    /// each waits until the stop's one deadline (`StopDeadline`) at most. The MQTT node goes
    /// offline last, after its cameras.
    public func finish() {
        // After a reload in progress, and none after: the parts finished are the last ones.
        let shared = reloading.withLock { _ in
            state.withLock { state -> Shared in
                state.closed = true
                return state.shared
            }
        }
        let serverStopped = DispatchGroup()
        if let server = shared.server { DispatchQueue(label: "lookout.web.stop").async(group: serverStopped) { server.stop() } }
        group.finishSinks()
        HookEventSink.finish(shared.hooks, diagnostics: environment.diagnostics)
        shared.node?.stop()
        serverStopped.wait()
        for line in environment.repeatedWarnings.flush() { environment.diagnostics(line) }
    }

    // MARK: Reload

    /// Moves to `configuration` (checked already: `ConfigurationFile.load`). Cameras whose
    /// effective settings and input did not change keep running, untouched; changed ones restart,
    /// new ones start, removed ones stop. A change of a global section (MQTT, hooks, HTTP, or a
    /// default every camera inherits) rebuilds the shared parts and restarts the cameras it
    /// changes. A camera that cannot be opened fails the reload (counted) with the others applied.
    @discardableResult
    public func reload(_ configuration: LookoutConfiguration) throws(ServiceError) -> ReloadReport {
        try reloading.withLock { _ throws(ServiceError) -> ReloadReport in
            guard !state.withLock({ $0.closed }) else {
                reloadStatistics.record(succeeded: false)
                throw .stopped
            }
            do throws(ServiceError) {
                // A file naming no camera runs the first camera, as at start; with none connected
                // the reload is refused before anything stops.
                if configuration.cameras.isEmpty, CaptureDevice.default(for: .video) == nil { throw .noCameraToReloadTo }
                let report = try apply(Self.withDefaultCamera(configuration))
                reloadStatistics.record(succeeded: true)
                return report
            } catch {
                reloadStatistics.record(succeeded: false)
                throw error
            }
        }
    }

    /// Counts a reload refused before it reached the service (an invalid file).
    public func countFailedReload() {
        reloadStatistics.record(succeeded: false)
    }

    private func apply(_ configuration: LookoutConfiguration) throws(ServiceError) -> ReloadReport {
        let (old, oldShared, started) = state.withLock { ($0.cameras, $0.shared, $0.started) }
        var report = ReloadReport()
        // A default every camera inherits changes only the cameras that inherit it (their effective
        // settings); a service-wide key changes the shared parts, and with them every camera.
        let sharedChanged = configuration.settings.overlaid(by: overrides).serviceWide != oldShared.settings.serviceWide
        // Built (hooks found, secrets read) before anything stops; connected after the old node is gone.
        var shared = sharedChanged ? try Self.makeShared(configuration, overrides: overrides, environment: environment) : oldShared
        report.rebuiltShared = sharedChanged
        let usesSubfolders = configuration.cameras.count > 1

        let wanted = configuration.cameras.map { camera -> CameraConfiguration in
            var effective = camera
            effective.settings = configuration.effectiveSettings(of: camera, overrides: overrides)
            return effective
        }
        let keep = old.filter { running in
            // A camera that writes files moves to DIR/<camera> when a second camera comes (and back).
            let writesFiles = running.configuration.settings.snapshots != nil || running.configuration.settings.record != nil
            return !sharedChanged && (!writesFiles || running.usesSubfolders == usesSubfolders) && wanted.contains(running.configuration)
        }
        let leaving = old.filter { running in !keep.contains { $0.pipeline === running.pipeline } }
        group.hold()
        defer { group.release() }
        // Leaving first: a changed camera's device must be free before it is opened again.
        for running in leaving {
            oldShared.server?.remove(camera: running.configuration.name)
            let returns = wanted.contains { $0.name == running.configuration.name && $0.settings.mqttName == running.configuration.settings.mqttName }
            // A camera gone for good leaves Home Assistant too; one that restarts keeps its entities.
            if !returns { running.mqttSink?.withdrawDiscovery() }
            group.remove(running.pipeline)
            if wanted.contains(where: { $0.name == running.configuration.name }) {
                report.restarted.append(running.configuration.name)
            } else {
                report.stopped.append(running.configuration.name)
            }
        }
        if sharedChanged {
            oldShared.server?.stop()
            HookEventSink.finish(oldShared.hooks, diagnostics: environment.diagnostics)
            oldShared.node?.stop()
        }
        var failure: ServiceError?
        do throws(ServiceError) { try Self.connect(&shared, environment: environment) } catch { failure = error }
        var cameras: [RunningCamera] = []
        for camera in configuration.cameras {
            if let running = keep.first(where: { $0.configuration.name == camera.name }) {
                cameras.append(running)
                report.unchanged.append(camera.name)
                continue
            }
            do throws(ServiceError) {
                let running = try Self.makeCamera(camera, of: configuration, overrides: overrides, shared: shared, environment: environment)
                running.pipeline.addReporter(reloadStatistics)
                cameras.append(running)
                group.add(running.pipeline)
                if !report.restarted.contains(camera.name) { report.started.append(camera.name) }
            } catch {
                environment.diagnostics("reload: camera \(camera.name): \(error)")
                failure = failure ?? error
            }
        }
        // No camera left running: idle (held) rather than end the run; one back ends the idling.
        // A stop() meanwhile may release this hold before it is taken: this reload's own hold
        // (above) keeps the count from reaching zero until both are done. Not after a fatal
        // failure stopped the group: the process is to exit with it.
        let groupStopped = group.isStopped
        let idling = state.withLock { state -> (began: Bool, ended: Bool) in
            state.configuration = configuration
            state.shared = shared
            state.cameras = cameras
            let idles = cameras.isEmpty && !state.closed && !groupStopped
            defer { state.idling = idles }
            return (idles && !state.idling, !idles && state.idling)
        }
        if idling.began {
            group.hold()
            environment.diagnostics("reload: no camera is running; the service idles until a reload brings one (or a stop)")
        }
        if idling.ended { group.release() }
        if sharedChanged, started, let server = shared.server {
            do throws(WebServerError) { try server.start() } catch { failure = failure ?? .web(error) }
        }
        if let failure { throw failure }
        return report
    }

    // MARK: Building

    private static func withDefaultCamera(_ configuration: LookoutConfiguration) -> LookoutConfiguration {
        guard configuration.cameras.isEmpty else { return configuration }
        var configuration = configuration
        // Named from the device it will be (video0), as a camera given by path is.
        configuration.cameras = [CameraConfiguration(name: CameraName.derived(from: CaptureDevice.default(for: .video)?.uniqueID ?? ""), input: "")]
        return configuration
    }

    private static func makeShared(_ configuration: LookoutConfiguration, overrides: ConfigurationSettings,
                                   environment: Environment) throws(ServiceError) -> Shared {
        let settings = configuration.settings.overlaid(by: overrides)
        let effective = settings.withDefaults
        var shared = Shared(settings: settings)
        let diagnostics = environment.diagnostics
        // A key as the user wrote it: `--on-code` on the command line, `on-code` in a file.
        let given = Set(overrides.givenKeys)
        let spelled: (String) -> String = { given.contains($0) ? "--" + $0 : $0 }
        func runner(_ key: String, _ command: [String]?) throws(ServiceError) -> HookRunner? {
            guard let command, !command.isEmpty else { return nil }
            do {
                // Named by its option in statistics and metrics, wherever it was given.
                return try HookRunner(name: "--" + key, command: command, timeout: effective.resolved(\.hookTimeout).seconds,
                                      maxConcurrent: effective.resolved(\.hookJobs), logger: environment.logger)
            } catch {
                throw .hook(key: spelled(key), reason: "\(error)")
            }
        }
        shared.codeHook = try runner("on-code", effective.onCode)
        shared.presenceHook = try runner("on-presence", effective.onPresence)
        if let url = effective.mqtt {
            let password = try ServiceSecrets.mqttPassword(effective, spelled: spelled)
            do throws(MQTTError) {
                let brokers = try MQTTBrokerList(url)
                if brokers.addresses.contains(where: { $0.password != nil }) {
                    diagnostics("warning: the MQTT password in --mqtt is visible to every user of this machine; use --mqtt-password-file or LOOKOUT_MQTT_PASSWORD")
                }
                var mqtt = MQTTConfiguration(brokers: brokers,
                                             clientID: effective.mqttClientID ?? ServiceSecrets.defaultClientID(topicPrefix: brokers.topicPrefix))
                mqtt.username = effective.mqttUser
                mqtt.password = password
                mqtt.caFile = effective.mqttCA
                mqtt.certificateFile = effective.mqttCert
                mqtt.keyFile = effective.mqttKey
                mqtt.queueCapacity = effective.resolved(\.mqttQueue)
                mqtt.homeAssistantDiscoveryPrefix = effective.haDiscovery == true ? effective.resolved(\.haPrefix) : nil
                let stateDirectory = StateDirectory.resolve(effective.stateDir, environment: StateDirectory.processEnvironment)
                do throws(OutboxError) { shared.outbox = try OutboxDirectory.prepare(stateDirectory: stateDirectory) } catch { throw .outbox(error) }
                mqtt.outbox = OutboxSettings(stateDirectory: stateDirectory,
                                             limits: OutboxLimits(maximumBytes: effective.resolved(\.outboxMaxSize).bytes,
                                                                  maximumAge: effective.resolved(\.outboxMaxAge).seconds))
                shared.mqtt = mqtt
            } catch {
                throw .mqtt(error)
            }
        }
        if let http = effective.http, let address = WebServerAddress(parsing: http) {
            var web = WebServer.Configuration(address: address)
            web.previewRate = effective.resolved(\.previewFPS)
            web.allowedHosts = effective.httpAllowedHosts ?? []
            // Checked when read (ConfigurationKey, HTTPOptions): none is dropped here.
            web.allowedOrigins = (effective.httpAllowedOrigins ?? []).compactMap { try? AllowedOrigin(parsing: $0) }
            web.token = try ServiceSecrets.httpToken(effective)
            // Whoever built the configuration (a file, options, a program), a camera is never
            // served to the network without a token unless that is asked for in so many words.
            if !address.isLoopback, web.token == nil, effective.httpInsecure != true {
                throw .configuration(ConfigurationProblems([ConfigurationProblem(
                    file: spelled("http") == "--http" ? "the command line" : "the configuration", position: nil, keyPath: spelled("http"),
                    message: "\(address) is reachable from other machines: give \(spelled("http-token-file")) FILE, or \(spelled("http-insecure")) to serve the camera to anyone")]))
            }
            shared.server = WebServer(configuration: web)
        }
        return shared
    }

    /// Connects the MQTT node of `shared` (a node per service; its cameras' connections follow).
    private static func connect(_ shared: inout Shared, environment: Environment) throws(ServiceError) {
        guard let mqtt = shared.mqtt, shared.node == nil else { return }
        do throws(MQTTError) { shared.node = try MQTTNode(configuration: mqtt, logger: environment.logger) } catch { throw .mqtt(error) }
    }

    /// One camera's session, input, metadata output and pipeline, with its sinks in order.
    private static func makeCamera(_ camera: CameraConfiguration, of configuration: LookoutConfiguration, overrides: ConfigurationSettings,
                                   shared: Shared, environment: Environment) throws(ServiceError) -> RunningCamera {
        let settings = configuration.effectiveSettings(of: camera, overrides: overrides)
        let several = configuration.cameras.count > 1
        let snapshotFolder = settings.snapshots.map { Folder(path: $0, subfolder: several ? camera.name : nil) }
        let recordingFolder = settings.record.map { Folder(path: $0, subfolder: several ? camera.name : nil) }
        let session = CaptureSession()
        let opened = try CameraInputFactory.open(camera.input, settings: settings,
                                                 wantsPictures: shared.server != nil || snapshotFolder != nil || recordingFolder != nil,
                                                 standardInputIsClosed: environment.standardInputIsClosed,
                                                 warnings: environment.diagnostics, notices: environment.notices)
        let metadata: MetadataOutput
        do throws(CaptureError) {
            try session.addInput(opened.input)
            metadata = try DetectionSetup.makeMetadataOutput(settings, in: session, profile: .video, isRealTime: opened.isRealTime)
        } catch {
            throw .capture(error)
        }
        var pipelineConfiguration = DetectionPipeline.Configuration(source: opened.source, camera: camera.name)
        pipelineConfiguration.lineFormat = settings.resolved(\.format)
        pipelineConfiguration.linesAreEvents = settings.events == .changes
        pipelineConfiguration.eventSettings = DetectionSetup.eventSettings(settings)
        let notices = environment.notices
        let pipeline = DetectionPipeline(session: session, metadataOutput: metadata, configuration: pipelineConfiguration, notices: notices)
        let diagnostics = environment.diagnostics

        if let output = environment.output { pipeline.addSink(output) }
        if let recordingFolder {
            var recording = ClipRecorder.Settings()
            recording.trigger = settings.resolved(\.recordOn)
            recording.preRoll = settings.resolved(\.preRoll).time
            recording.postRoll = settings.resolved(\.postRoll).time
            recording.segmentDuration = settings.resolved(\.segment).time
            recording.retention = RecordingRetention(maximumBytes: settings.recordKeep?.bytes, maximumAge: settings.recordMaxAge?.seconds)
            recording.frameRingCapacity = Int(settings.resolved(\.recordMemory).bytes)
            let recorder = ClipRecorder(directory: recordingFolder, settings: recording, diagnostics: diagnostics)
            do throws(CaptureError) { try session.addOutput(recorder.output) } catch { throw .capture(error) }
            pipeline.addSink(recorder)
            // Its `recording` lines go into the pipeline like any event; weak: the pipeline holds the recorder.
            recorder.onEvent = { [weak pipeline] in pipeline?.post($0) }
        }
        var mqttSink: MQTTEventSink?
        if let node = shared.node {
            do throws(MQTTError) { mqttSink = try node.makeSink(camera: settings.mqttName ?? camera.name, zones: settings.zones?.map(\.name) ?? []) } catch { throw .mqtt(error) }
        }
        if let snapshotFolder {
            var options = SnapshotWriter.Options()
            options.drawsBoxes = settings.resolved(\.snapshotBoxes)
            options.writesCleanCopy = settings.resolved(\.snapshotClean)
            options.keep = settings.resolved(\.snapshotKeep)
            options.triggers = Set(settings.resolved(\.snapshotOn))
            let writer = SnapshotWriter(directory: snapshotFolder, options: options, diagnostics: diagnostics)
            if let mqttSink { writer.setWrittenHandler { _, jpeg in mqttSink.publishSnapshot(jpeg) } }
            pipeline.addSink(writer)
        }
        if let mqttSink { pipeline.addSink(mqttSink) }
        if shared.codeHook != nil || shared.presenceHook != nil {
            // The runners are shared: the service finishes them at exit, not a camera a reload removes.
            pipeline.addSink(HookEventSink(codeHook: shared.codeHook, presenceHook: shared.presenceHook,
                                           source: opened.source, camera: camera.name, finishesRunners: false, diagnostics: diagnostics))
        }
        // The keyboard exists from here until the camera's sinks finish (or, when a later step fails, until dropped).
        if let keyboard = try KeyboardSetup.makeSink(camera: camera.name, settings: settings, overrides: overrides, environment: environment) {
            pipeline.addSink(keyboard)
        }
        if let server = shared.server {
            let photoOutput = PhotoOutput()
            do throws(CaptureError) { try session.addOutput(photoOutput) } catch { throw .capture(error) }
            pipeline.addSink(server.eventSink)
            pipeline.addReporter(server)
            server.show(WebServer.Camera(pipeline: pipeline, snapshotDirectory: snapshotFolder, recordingDirectory: recordingFolder),
                        photoOutput: photoOutput)
        }
        var effective = camera
        effective.settings = settings
        return RunningCamera(configuration: effective, pipeline: pipeline, mqttSink: mqttSink, usesSubfolders: several)
    }
}
