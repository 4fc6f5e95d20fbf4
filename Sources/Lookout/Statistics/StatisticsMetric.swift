/// One Prometheus series a statistics section offers `/metrics`: its full name (with its unit),
/// help, labels besides `camera`, and value.
public struct StatisticsMetric: Sendable {
    public enum Value: Sendable {
        /// A total since the start; `/metrics` moves its counter by what changed since the last scrape.
        case counter(Int)
        case gauge(Double)
    }

    public var name: String
    public var help: String
    public var labels: [(name: String, value: String)]
    public var value: Value
    /// The same for every camera (the web server's own): exported once, without a `camera` label.
    public var isShared: Bool

    public init(_ name: String, help: String, labels: [(name: String, value: String)] = [], _ value: Value,
                isShared: Bool = false) {
        self.name = name
        self.help = help
        self.labels = labels
        self.value = value
        self.isShared = isShared
    }
}
