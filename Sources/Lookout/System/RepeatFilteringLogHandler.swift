import Logging

/// A log handler that passes each message on to another logger, warnings and worse through a
/// `RepeatedMessageFilter`: the same warning again within a minute is counted, not written. What
/// is less than a warning (notices of a state that changed) is passed on as it is.
public struct RepeatFilteringLogHandler: LogHandler {
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    private let upstream: Logger
    private let filter: RepeatedMessageFilter

    public init(forwardingTo upstream: Logger, filter: RepeatedMessageFilter) {
        self.upstream = upstream
        self.filter = filter
    }

    /// A logger that writes to `upstream` through `filter`.
    public static func logger(forwardingTo upstream: Logger, filter: RepeatedMessageFilter) -> Logger {
        Logger(label: upstream.label) { _ in RepeatFilteringLogHandler(forwardingTo: upstream, filter: filter) }
    }

    public func log(event: LogEvent) {
        guard event.level >= .warning else {
            upstream.log(level: event.level, event.message)
            return
        }
        for line in filter.lines(for: event.message.description) { upstream.log(level: event.level, "\(line)") }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
