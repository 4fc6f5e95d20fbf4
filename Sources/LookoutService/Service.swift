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
/// The order of a camera's sinks, declared once in `ServiceParts` (each gets a frame's results
/// after the one before it, and finishes after it): standard output; the clip recorder (also an
/// event source: its `recording` events go through the same stages); the snapshot writer (also
/// the stage that names the snapshot an event carries); MQTT; hooks; the keyboard; the web
/// server's event stream. No sink feeds another.
public final class Service: Sendable {
    private typealias Shared = ServiceParts.Shared
    private typealias RunningCamera = ServiceParts.RunningCamera

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
    /// One reload at a time, and the finish after them.
    private let controls = OneAtATime()

    /// Builds every part of `configuration` (nothing runs yet). A configuration without cameras
    /// runs the first camera (/dev/video0 or the like) as "video0".
    public init(configuration: LookoutConfiguration, overrides: ConfigurationSettings = ConfigurationSettings(),
                environment: Environment) throws(ServiceError) {
        self.environment = environment
        self.overrides = overrides
        let configuration = ServiceParts.withDefaultCamera(configuration)
        var shared = try ServiceParts.makeShared(configuration, overrides: overrides, environment: environment)
        try ServiceParts.connect(&shared, environment: environment)
        var cameras: [RunningCamera] = []
        do throws(ServiceError) {
            for camera in configuration.cameras {
                cameras.append(try ServiceParts.makeCamera(camera, of: configuration, overrides: overrides, shared: shared, environment: environment))
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
    public func start() async throws(ServiceError) {
        let server = state.withLock { state -> WebServer? in
            state.started = true
            return state.shared.server
        }
        if let server {
            do throws(WebServerError) { try await server.start() } catch { throw .web(error) }
        }
    }

    /// Runs every camera until each has ended or `stop()` is called (cameras added by a reload
    /// too), blocking the calling thread; the outcomes of the cameras running at the end, in order.
    public func run() -> [DetectionPipeline.Outcome] {
        let outcomes = group.run()
        state.withLock { $0.closed = true }
        return outcomes
    }

    /// `run()` from async code: the cameras' group runs on a thread of its own, and no thread of
    /// Swift's pool waits for it.
    public func run() async -> [DetectionPipeline.Outcome] {
        await Blocking.run(label: "lookout.service") { [self] in run() }
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
    public func finish() async {
        // After a reload in progress, and none after: the parts finished are the last ones.
        let shared = await controls.run { [state] () -> Shared in
            state.withLock { state -> Shared in
                state.closed = true
                return state.shared
            }
        }
        let serverStopped = Task { await shared.server?.stop() }
        // The sinks' and the node's waits block (each bounded): on a thread of their own.
        await Blocking.run(label: "lookout.finish") { [group, environment] in
            group.finishSinks()
            HookEventSink.finish(shared.hooks, diagnostics: environment.diagnostics)
            shared.node?.stop()
        }
        await serverStopped.value
        for line in environment.repeatedWarnings.flush() { environment.diagnostics(line) }
    }

    // MARK: Reload

    /// Moves to `configuration` (checked already: `ConfigurationFile.load`). Cameras whose
    /// effective settings and input did not change keep running, untouched; changed ones restart,
    /// new ones start, removed ones stop. A change of a global section (MQTT, hooks, HTTP, or a
    /// default every camera inherits) rebuilds the shared parts and restarts the cameras it
    /// changes. A camera that cannot be opened fails the reload (counted) with the others applied.
    @discardableResult
    public func reload(_ configuration: LookoutConfiguration) async throws(ServiceError) -> ReloadReport {
        try await controls.run { [self] () async throws(ServiceError) -> ReloadReport in
            guard !state.withLock({ $0.closed }) else {
                reloadStatistics.record(succeeded: false)
                throw .stopped
            }
            do throws(ServiceError) {
                // A file naming no camera runs the first camera, as at start; with none connected
                // the reload is refused before anything stops.
                if configuration.cameras.isEmpty, CaptureDevice.default(for: .video) == nil { throw .noCameraToReloadTo }
                let report = try await self.apply(ServiceParts.withDefaultCamera(configuration))
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

    private func apply(_ configuration: LookoutConfiguration) async throws(ServiceError) -> ReloadReport {
        let (old, oldShared, started) = state.withLock { ($0.cameras, $0.shared, $0.started) }
        var report = ReloadReport()
        // A default every camera inherits changes only the cameras that inherit it (their effective
        // settings); a service-wide key changes the shared parts, and with them every camera.
        let sharedChanged = configuration.settings.overlaid(by: overrides).serviceWide != oldShared.settings.serviceWide
        // Built (hooks found, secrets read) before anything stops; connected after the old node is gone.
        var shared = sharedChanged ? try ServiceParts.makeShared(configuration, overrides: overrides, environment: environment) : oldShared
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
        // Each step that blocks (a camera's run ending, its device opening, hooks and MQTT
        // finishing) runs on a queue of its own, never on a thread of Swift's pool.
        report = await Blocking.run(label: "lookout.reload") { [self, report] in
            retire(leaving, wanted: wanted, from: oldShared, report: report)
        }
        if sharedChanged {
            await oldShared.server?.stop()
            await Blocking.run(label: "lookout.reload") { [environment] in
                HookEventSink.finish(oldShared.hooks, diagnostics: environment.diagnostics)
                oldShared.node?.stop()
            }
        }
        var failure: ServiceError?
        (report, shared, failure) = await Blocking.run(label: "lookout.reload") { [self, report, shared] in
            start(configuration, keeping: keep, shared: shared, report: report)
        }
        if sharedChanged, started, let server = shared.server {
            do throws(WebServerError) { try await server.start() } catch { failure = failure ?? .web(error) }
        }
        if let failure { throw failure }
        return report
    }

    /// Stops the cameras leaving (a changed one's device must be free before it opens again).
    private func retire(_ leaving: [RunningCamera], wanted: [CameraConfiguration], from oldShared: Shared,
                        report: ReloadReport) -> ReloadReport {
        var report = report
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
        return report
    }

    /// Connects the shared parts, starts the cameras not kept and moves the state to
    /// `configuration`; the first failure is returned with what was applied.
    private func start(_ configuration: LookoutConfiguration, keeping keep: [RunningCamera], shared: Shared,
                       report: ReloadReport) -> (ReloadReport, Shared, ServiceError?) {
        var report = report, shared = shared
        var failure: ServiceError?
        do throws(ServiceError) { try ServiceParts.connect(&shared, environment: environment) } catch { failure = error }
        var cameras: [RunningCamera] = []
        for camera in configuration.cameras {
            if let running = keep.first(where: { $0.configuration.name == camera.name }) {
                cameras.append(running)
                report.unchanged.append(camera.name)
                continue
            }
            do throws(ServiceError) {
                let running = try ServiceParts.makeCamera(camera, of: configuration, overrides: overrides, shared: shared, environment: environment)
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
        // (apply's) keeps the count from reaching zero until both are done. Not after a fatal
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
        return (report, shared, failure)
    }
}
