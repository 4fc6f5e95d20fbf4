import Logging

/// swift-log's handler for the command: every `Logger` message goes to `DiagnosticOutput`,
/// whose level (--log-level) every logger shares.
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]

    /// What this logger's owner set: it may quiet its own logger (the web server's framework
    /// logs only critical), never make it say what --log-level leaves out.
    private var floor = Logger.Level.trace

    /// The process's level (--log-level, shared by every logger), or the logger's own when higher.
    var logLevel: Logger.Level {
        get { max(DiagnosticOutput.level, floor) }
        set { floor = newValue }
    }

    func log(event: LogEvent) {
        DiagnosticOutput.write(event.message.description, level: event.level)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
