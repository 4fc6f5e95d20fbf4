import Lookout

/// The service's own section of every camera's statistics: the reloads done and refused
/// (`reloads` in the stats line and /api/status, `lookout_reloads_total` in /metrics).
final class ReloadStatistics: StatisticsReporting, Sendable {
    private let counts = Locked(Service.ReloadCounts())

    func record(succeeded: Bool) {
        counts.withLock { if succeeded { $0.succeeded += 1 } else { $0.failed += 1 } }
    }

    var current: Service.ReloadCounts { counts.withLock { $0 } }

    func statisticsSection(camera: String?) -> StatisticsSection? {
        let counts = current
        // Nothing to say until a reload has been asked for.
        guard counts.succeeded + counts.failed > 0 else { return nil }
        return StatisticsSection(
            name: "reloads",
            fields: [StatisticsField("done", .integer(counts.succeeded)), StatisticsField("failed", .integer(counts.failed))],
            summary: StatisticsSection.summary("reloads", counts.succeeded, "done", failed: counts.failed),
            metrics: [StatisticsMetric("lookout_reloads_total", help: "Configuration reloads applied.", .counter(counts.succeeded), isShared: true),
                      StatisticsMetric("lookout_reloads_failed_total", help: "Configuration reloads refused (an invalid file) or failed.",
                                       .counter(counts.failed), isShared: true)])
    }
}
