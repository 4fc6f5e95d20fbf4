import Lookout
import LookoutHTTP
#if canImport(Glibc)
import Glibc
#endif

/// What a `Service` is built of, made from its configuration: the parts every camera shares (the
/// MQTT node, hook runners, web server) and each camera's session, input and pipeline with its
/// sinks in their order (see `Service`). The service runs and reloads them; this makes them.
enum ServiceParts {
    /// The parts every camera shares.
    struct Shared {
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
        /// What event ids begin with (`EventNumbering`): the MQTT client ID, the one MQTT would use
        /// without MQTT.
        var eventNode = ""
        /// Where each camera's event numbers are kept across restarts: the state directory when
        /// MQTT uses it or one is named (`state-dir`, systemd's `$STATE_DIRECTORY`); nil: counted
        /// from the clock, so that a run on the command line leaves no files behind.
        var eventStateDirectory: String?

        var hooks: [HookRunner] { [codeHook, presenceHook].compactMap { $0 } }
    }

    /// A camera being run.
    struct RunningCamera {
        /// Its configuration, its settings the effective ones (what a reload compares).
        var configuration: CameraConfiguration
        var pipeline: DetectionPipeline
        var mqttSink: MQTTEventSink?
        /// Its files go to DIR/<camera> (several cameras) rather than DIR.
        var usesSubfolders: Bool
    }

    static func withDefaultCamera(_ configuration: LookoutConfiguration) -> LookoutConfiguration {
        guard configuration.cameras.isEmpty else { return configuration }
        var configuration = configuration
        // Named from the device it will be (video0), as a camera given by path is.
        configuration.cameras = [CameraConfiguration(name: CameraName.derived(from: CaptureDevice.default(for: .video)?.uniqueID ?? ""), input: "")]
        return configuration
    }

    static func makeShared(_ configuration: LookoutConfiguration, overrides: ConfigurationSettings,
                                   environment: Service.Environment) throws(ServiceError) -> Shared {
        let settings = configuration.settings.overlaid(by: overrides)
        let effective = settings.withDefaults
        var shared = Shared(settings: settings)
        let diagnostics = environment.diagnostics
        let spelled = KeySpelling(commandLine: overrides, file: configuration.settings)
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
        shared.eventNode = effective.mqttClientID ?? ServiceSecrets.defaultClientID(topicPrefix: "lookout")
        let environment = StateDirectory.processEnvironment
        if effective.stateDir != nil || environment["STATE_DIRECTORY"] != nil {
            shared.eventStateDirectory = StateDirectory.resolve(effective.stateDir, environment: environment)
        }
        shared.codeHook = try runner("on-code", effective.onCode)
        shared.presenceHook = try runner("on-presence", effective.onPresence)
        if let url = effective.mqtt {
            let password = try ServiceSecrets.mqttPassword(effective, spelled: spelled)
            do throws(MQTTError) {
                let brokers = try MQTTBrokerList(url)
                if brokers.addresses.contains(where: { $0.password != nil }) {
                    diagnostics(ServiceSecrets.passwordInURLWarning(onCommandLine: spelled.isOnCommandLine("mqtt")))
                }
                var mqtt = MQTTConfiguration(brokers: brokers,
                                             clientID: effective.mqttClientID ?? ServiceSecrets.defaultClientID(topicPrefix: brokers.topicPrefix))
                shared.eventNode = mqtt.clientID
                mqtt.username = effective.mqttUser
                mqtt.password = password
                mqtt.caFile = effective.mqttCA
                mqtt.certificateFile = effective.mqttCert
                mqtt.keyFile = effective.mqttKey
                mqtt.queueCapacity = effective.resolved(\.mqttQueue)
                mqtt.homeAssistantDiscoveryPrefix = effective.haDiscovery == true ? effective.resolved(\.haPrefix) : nil
                let stateDirectory = StateDirectory.resolve(effective.stateDir, environment: StateDirectory.processEnvironment)
                shared.eventStateDirectory = stateDirectory
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
            web.allowedHostsSetting = spelled("http-allowed-host", following: "http")
            web.allowedOriginsSetting = spelled("http-allowed-origin", following: "http")
            web.token = try ServiceSecrets.httpToken(effective)
            // Whoever built the configuration (a file, options, a program), a camera is never
            // served to the network without a token unless that is asked for in so many words.
            if let refusal = address.exposureRefusal(hasToken: web.token != nil, insecure: effective.httpInsecure == true,
                                                     tokenSetting: spelled("http-token-file") + " FILE", insecureSetting: spelled("http-insecure")) {
                throw .configuration(spelled.problem("http", refusal))
            }
            shared.server = WebServer(configuration: web)
        }
        return shared
    }

    /// Connects the MQTT node of `shared` (a node per service; its cameras' connections follow).
    static func connect(_ shared: inout Shared, environment: Service.Environment) throws(ServiceError) {
        guard let mqtt = shared.mqtt, shared.node == nil else { return }
        do throws(MQTTError) { shared.node = try MQTTNode(configuration: mqtt, logger: environment.logger) } catch { throw .mqtt(error) }
    }

    /// How a camera's events are numbered: named as in MQTT topics, the numbers kept in the state
    /// directory when there is one in use (`<node>-<camera>`, as the camera's outbox).
    static func eventNumbering(camera: String, shared: Shared, warn: @escaping @Sendable (String) -> Void) throws(ServiceError) -> EventNumbering {
        guard let directory = shared.eventStateDirectory else { return EventNumbering(node: shared.eventNode, camera: camera) }
        let name = shared.eventNode + "-" + camera
        // Before ids were the pipeline's, the MQTT outbox numbered them 1, 2, 3... in its journal
        // (the same name): a camera that has one begins its new series past them.
        let journal = directory + "/outbox/" + DirectoryHandle.entryName(for: name)
        let firstWhenNew = journal.withPlatformPath({ access($0, F_OK) }) == 0 ? EventSequenceFile.clockMilliseconds() : 1
        do throws(EventSequenceError) {
            let file = try EventSequenceFile.open(stateDirectory: directory, name: name, firstWhenNew: firstWhenNew, warn: warn)
            return EventNumbering(node: shared.eventNode, camera: camera, storage: file)
        } catch {
            throw .eventIDs(error)
        }
    }

    /// One camera's session, input, metadata output and pipeline, with its sinks in order.
    static func makeCamera(_ camera: CameraConfiguration, of configuration: LookoutConfiguration, overrides: ConfigurationSettings,
                                   shared: Shared, environment: Service.Environment) throws(ServiceError) -> RunningCamera {
        let settings = configuration.effectiveSettings(of: camera, overrides: overrides)
        let several = configuration.cameras.count > 1
        let snapshotFolder = settings.snapshots.map { Folder(path: $0, subfolder: several ? camera.name : nil) }
        let recordingFolder = settings.record.map { Folder(path: $0, subfolder: several ? camera.name : nil) }
        let session = CaptureSession()
        let opened = try CameraInputFactory.open(camera.input, settings: settings,
                                                 wantsPictures: shared.server != nil || snapshotFolder != nil || recordingFolder != nil,
                                                 standardInputIsClosed: environment.standardInputIsClosed,
                                                 warnings: environment.diagnostics, notices: environment.notices,
                                                 spelling: KeySpelling(commandLine: overrides))
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
        pipelineConfiguration.eventNumbering = try eventNumbering(camera: settings.mqttName ?? camera.name, shared: shared,
                                                                  warn: environment.diagnostics)
        let notices = environment.notices
        let pipeline = DetectionPipeline(session: session, metadataOutput: metadata, configuration: pipelineConfiguration, notices: notices)
        let diagnostics = environment.diagnostics

        var recorder: ClipRecorder?
        if let recordingFolder {
            var recording = ClipRecorder.Settings()
            recording.trigger = settings.resolved(\.recordOn)
            recording.preRoll = settings.resolved(\.preRoll).time
            recording.postRoll = settings.resolved(\.postRoll).time
            recording.segmentDuration = settings.resolved(\.segment).time
            recording.retention = RecordingRetention(maximumBytes: settings.recordKeep?.bytes, maximumAge: settings.recordMaxAge?.seconds)
            recording.frameRingCapacity = Int(settings.resolved(\.recordMemory).bytes)
            let clips = ClipRecorder(directory: recordingFolder, settings: recording, diagnostics: diagnostics)
            do throws(CaptureError) { try session.addOutput(clips.output) } catch { throw .capture(error) }
            recorder = clips
        }
        var mqttSink: MQTTEventSink?
        if let node = shared.node {
            do throws(MQTTError) { mqttSink = try node.makeSink(camera: settings.mqttName ?? camera.name, zones: settings.zones?.map(\.name) ?? []) } catch { throw .mqtt(error) }
        }
        var snapshots: SnapshotWriter?
        if let snapshotFolder {
            var options = SnapshotWriter.Options()
            options.drawsBoxes = settings.resolved(\.snapshotBoxes)
            options.writesCleanCopy = settings.resolved(\.snapshotClean)
            options.keep = settings.resolved(\.snapshotKeep)
            options.triggers = Set(settings.resolved(\.snapshotOn))
            snapshots = SnapshotWriter(directory: snapshotFolder, options: options, diagnostics: diagnostics)
        }
        // The runners are shared: the service finishes them at exit, not a camera a reload removes.
        let hooks = shared.codeHook == nil && shared.presenceHook == nil ? nil
            : HookEventSink(codeHook: shared.codeHook, presenceHook: shared.presenceHook, source: opened.source,
                            camera: camera.name, finishesRunners: false, diagnostics: diagnostics)
        // The keyboard exists from here until the camera's sinks finish (or, when a later step fails, until dropped).
        let keyboard = try KeyboardSetup.makeSink(camera: camera.name, settings: settings, overrides: overrides, environment: environment)
        // The sinks' one order (docs/architecture.md, "An event's stages"): each gets every result
        // after those before it. The recorder is also an event source (its `recording` events),
        // the snapshot writer also the snapshot stage; neither feeds another sink.
        let sinks: [(any EventSink)?] = [environment.output, recorder, snapshots, mqttSink, hooks, keyboard, shared.server?.eventSink]
        for case let sink? in sinks { pipeline.addSink(sink) }
        if let server = shared.server {
            let photoOutput = PhotoOutput()
            do throws(CaptureError) { try session.addOutput(photoOutput) } catch { throw .capture(error) }
            pipeline.addReporter(server)
            server.show(WebServer.Camera(pipeline: pipeline, snapshotDirectory: snapshotFolder, recordingDirectory: recordingFolder),
                        photoOutput: photoOutput)
        }
        var effective = camera
        effective.settings = settings
        return RunningCamera(configuration: effective, pipeline: pipeline, mqttSink: mqttSink, usesSubfolders: several)
    }
}
