import Lookout
import Logging

extension Service {
    /// Where a service writes what is not an event: its standard-output sink and its words.
    public struct Environment: Sendable {
        /// Every camera's lines go here first (standard output, or a test's collector).
        public var output: (any EventSink)?
        /// Warnings and failures, one line each (standard error).
        public var diagnostics: @Sendable (String) -> Void
        /// Notices for a person (the format streamed, a camera lost and back); not with `quiet`.
        public var notices: @Sendable (String) -> Void
        /// Where the parts that log with levels (MQTT, hooks) write: for the closures' environment,
        /// warnings and worse to `diagnostics`, the rest to `notices`.
        public var logger: Logger
        /// Standard input was closed when the process started.
        public var standardInputIsClosed = false
        /// The uinput device node the keyboard outputs are made on (`LOOKOUT_UINPUT` for `lookout run`).
        public var uinputPath = UInputDevice.defaultPath
        /// Warnings and failures pass through it (`diagnostics` and `logger` alike): the same one
        /// again within a minute is counted, not said; `Service.finish()` says what it still holds.
        public let repeatedWarnings = RepeatedMessageFilter()

        public init(output: (any EventSink)? = nil, diagnostics: @escaping @Sendable (String) -> Void = { _ in },
                    notices: @escaping @Sendable (String) -> Void = { _ in }) {
            self.output = output
            let filter = repeatedWarnings
            let filtered: @Sendable (String) -> Void = { for line in filter.lines(for: $0) { diagnostics(line) } }
            self.diagnostics = filtered
            self.notices = notices
            logger = Logger(label: "lookout") { _ in
                DiagnosticsLogHandler(leveled: { level, message in level >= .warning ? filtered(message) : notices(message) })
            }
        }

        /// Everything goes to `logger`: warnings and failures as warnings, notices as notices.
        public init(output: (any EventSink)? = nil, logger: Logger) {
            self.output = output
            let filtered = RepeatFilteringLogHandler.logger(forwardingTo: logger, filter: repeatedWarnings)
            self.logger = filtered
            diagnostics = { filtered.warning("\($0)") }
            notices = { filtered.notice("\($0)") }
        }
    }
}
