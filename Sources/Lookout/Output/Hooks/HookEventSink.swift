/// Runs the hooks: the code hook for each `code` event, the presence hook for each `presence`
/// change (the camera's, and each zone's with `LOOKOUT_ZONE` set), each with the event's line on
/// standard input and its fields in the environment.
public final class HookEventSink: EventSink, @unchecked Sendable {
    public let codeHook: HookRunner?
    public let presenceHook: HookRunner?
    private let source: String
    private let camera: String?
    private let diagnostics: @Sendable (String) -> Void

    public init(codeHook: HookRunner?, presenceHook: HookRunner?, source: String, camera: String? = nil,
                diagnostics: @escaping @Sendable (String) -> Void) {
        self.codeHook = codeHook
        self.presenceHook = presenceHook
        self.source = source
        self.camera = camera
        self.diagnostics = diagnostics
    }

    public func consume(_ output: PipelineOutput) {
        for emitted in output.events {
            let hook: HookRunner?
            switch emitted.event {
            case .code: hook = codeHook
            case .presence: hook = presenceHook
            default: hook = nil
            }
            hook?.run(input: emitted.line, environment: HookEnvironment.variables(for: emitted.event, source: source, camera: camera))
        }
    }

    /// Lets running hooks finish, each within its timeout and two seconds more, and within the
    /// stop's deadline (`StopDeadline`); those still running then are stopped as at their timeout
    /// (SIGTERM to the group), so that none outlives the process.
    public func finish() {
        for hook in [codeHook, presenceHook].compactMap({ $0 })
        where !hook.waitUntilIdle(timeout: StopDeadline.shared.remaining(atMost: hook.timeout + 2)) {
            let running = hook.terminateRunning()
            diagnostics("hook \(hook.name): \(running) still running at exit; stopped (SIGTERM)")
        }
    }

    public func report(into snapshot: inout StatisticsSnapshot) {
        for hook in [codeHook, presenceHook].compactMap({ $0 }) {
            let statistics = hook.statistics
            var entry = StatisticsSnapshot.HookStatistics(name: hook.name)
            entry.runs = statistics.started
            entry.failed = statistics.failed
            entry.timedOut = statistics.timedOut
            entry.dropped = statistics.dropped
            snapshot.hooks.append(entry)
        }
    }
}
