/// Runs the hooks: the code hook for each `code` event, the presence hook for each `presence`
/// change (the camera's, and each zone's with `LOOKOUT_ZONE` set), each with the event's line on
/// standard input and its fields in the environment.
public final class HookEventSink: EventSink, Sendable {
    public let codeHook: HookRunner?
    public let presenceHook: HookRunner?
    private let source: String
    private let camera: String?
    private let diagnostics: @Sendable (String) -> Void
    /// The runners are this sink's own: its `finish()` lets them finish. Runners shared by several
    /// cameras are finished by their owner (`HookEventSink.finish(_:diagnostics:)`) at exit, so a
    /// camera removed by a reload leaves the others' hooks running.
    private let finishesRunners: Bool

    public init(codeHook: HookRunner?, presenceHook: HookRunner?, source: String, camera: String? = nil,
                finishesRunners: Bool = true, diagnostics: @escaping @Sendable (String) -> Void) {
        self.codeHook = codeHook
        self.presenceHook = presenceHook
        self.source = source
        self.camera = camera
        self.finishesRunners = finishesRunners
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
            hook?.run(input: emitted.line, environment: HookEnvironment.variables(for: emitted.event, id: emitted.id, source: source, camera: camera))
        }
    }

    /// Lets running hooks finish, each within its timeout and two seconds more, and within the
    /// stop's deadline (`StopDeadline`); those still running then are stopped as at their timeout
    /// (SIGTERM to the group), so that none outlives the process.
    public func finish() {
        if finishesRunners { Self.finish([codeHook, presenceHook].compactMap { $0 }, diagnostics: diagnostics) }
    }

    /// Lets `hooks` finish as `finish()` does.
    public static func finish(_ hooks: [HookRunner], diagnostics: @Sendable (String) -> Void) {
        for hook in hooks where !hook.waitUntilIdle(timeout: StopDeadline.shared.remaining(atMost: hook.timeout + 2)) {
            let running = hook.terminateRunning()
            diagnostics("hook \(hook.name): \(running) still running at exit; stopped (SIGTERM)")
        }
    }

    /// `hooks`: each hook's runs started, failed, timed out, and dropped from its full queue.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let hooks = [codeHook, presenceHook].compactMap { $0 }
        guard !hooks.isEmpty else { return nil }
        var fields: [StatisticsField] = []
        var metrics: [StatisticsMetric] = []
        for hook in hooks {
            let statistics = hook.statistics
            fields.append(StatisticsField(hook.name, .object([StatisticsField("runs", .integer(statistics.started)),
                                                              StatisticsField("failed", .integer(statistics.failed)),
                                                              StatisticsField("timed_out", .integer(statistics.timedOut)),
                                                              StatisticsField("dropped", .integer(statistics.dropped))])))
            let label = [(name: "hook", value: hook.name)]
            metrics += [StatisticsMetric("lookout_hook_runs_total", help: "Hook runs started.", labels: label,
                                         .counter(statistics.started)),
                        StatisticsMetric("lookout_hook_failures_total", help: "Hook runs that failed or timed out.",
                                         labels: label, .counter(statistics.failed + statistics.timedOut)),
                        StatisticsMetric("lookout_hook_dropped_total", help: "Hook runs dropped from the full queue.",
                                         labels: label, .counter(statistics.dropped))]
        }
        return StatisticsSection(name: "hooks", fields: fields, metrics: metrics)
    }
}
