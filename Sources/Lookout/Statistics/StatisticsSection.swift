/// One part's own statistics (MQTT, hooks, snapshots, recordings, the web server): the part names
/// it and fills it (`StatisticsReporting`), and `StatisticsSnapshot` writes it into the `stats`
/// line, `/api/status`, the end-of-run sentence and `/metrics` without knowing what it counts.
public struct StatisticsSection: Sendable {
    /// The section's key in the `stats` line and `/api/status` (`mqtt`, `hooks`, ...).
    public var name: String
    /// Its fields, in the order they are written.
    public var fields: [StatisticsField]
    /// Its clause in the end-of-run sentence ("snapshots: 4 written"), or nil for none.
    public var summary: String?
    /// Its series in `/metrics`.
    public var metrics: [StatisticsMetric]

    public init(name: String, fields: [StatisticsField], summary: String? = nil, metrics: [StatisticsMetric] = []) {
        self.name = name
        self.fields = fields
        self.summary = summary
        self.metrics = metrics
    }

    /// A summary clause counting done and failed work ("recordings: 3 finished, 1 failed"), nil
    /// while both are 0.
    public static func summary(_ name: String, _ done: Int, _ verb: String, failed: Int) -> String? {
        guard done + failed > 0 else { return nil }
        return "\(name): \(done) \(verb)" + (failed > 0 ? ", \(failed) failed" : "")
    }

    /// The field named `name`, nil when the section has none.
    public subscript(name: String) -> StatisticsField.Value? {
        fields.first { $0.name == name }?.value
    }
}
