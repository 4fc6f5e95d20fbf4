import Logging

/// swift-log's handler for the command: every `Logger` message goes to `DiagnosticOutput`,
/// whose level (--log-level) is the one every logger shares.
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]

    /// The process's level: a level set on one logger would leave others writing what
    /// --log-level asked to leave out.
    var logLevel: Logger.Level {
        get { DiagnosticOutput.level }
        set {} // --log-level alone sets it
    }

    func log(event: LogEvent) {
        DiagnosticOutput.write(event.message.description, level: event.level)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
