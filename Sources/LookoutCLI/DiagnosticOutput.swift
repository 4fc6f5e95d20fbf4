import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where diagnostics go: standard error, one line per write(2), messages below `level` left out
/// (--log-level). On a terminal or a pipe a line is a plain sentence, "lookout: ..."; when
/// standard error is the journal (`JournalStream`), it starts with the level's sd-daemon
/// priority instead ("<4>camera lost ..."), which journald stores as the line's priority and
/// names the program itself.
enum DiagnosticOutput {
    /// The level written when none is asked for: every diagnostic Lookout wrote before it had levels.
    static let defaultLevel = Logger.Level.info

    private static let threshold = Atomic<Int>(Logger.Level.allCases.firstIndex(of: defaultLevel) ?? 0)
    private static let toJournal = JournalStream.isStandardError()

    /// The least severe level written.
    static var level: Logger.Level {
        get { Logger.Level.allCases[threshold.load(ordering: .relaxed)] }
        set { threshold.store(Logger.Level.allCases.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
    }

    /// The syslog priority of a level (sd-daemon(3)'s `<N>` prefixes).
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The line written for `message` at `level` (escaped: one line, whatever it holds).
    static func line(_ message: String, level: Logger.Level, journal: Bool) -> String {
        let text = (message.hasSuffix("\n") ? String(message.dropLast()) : message).escapedForDisplay
        return (journal ? "<\(priority(of: level))>" : "lookout: ") + text + "\n"
    }

    static func write(_ message: String, level: Logger.Level) {
        guard level >= self.level else { return }
        // One write(2) per line: stderr is unbuffered and lines from threads must not interleave.
        var bytes = Array(line(message, level: level, journal: toJournal).utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
