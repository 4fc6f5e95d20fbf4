import Logging

/// A log handler that hands each message's text to a closure, whatever its level: how a
/// component that logs with levels (a `Logger`) still takes a `diagnostics: (String) -> Void`
/// closure, as it did before it had levels.
public struct DiagnosticsLogHandler: LogHandler {
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    private let write: @Sendable (Logger.Level, String) -> Void

    public init(_ diagnostics: @escaping @Sendable (String) -> Void) {
        write = { diagnostics($1) }
    }

    /// Each message with its level (a closure that sorts them: warnings here, notices there).
    public init(leveled write: @escaping @Sendable (Logger.Level, String) -> Void) {
        self.write = write
    }

    /// A logger whose every message goes to `diagnostics`.
    public static func logger(_ label: String, _ diagnostics: @escaping @Sendable (String) -> Void) -> Logger {
        Logger(label: label) { _ in DiagnosticsLogHandler(diagnostics) }
    }

    public func log(event: LogEvent) {
        write(event.level, event.message.description)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
