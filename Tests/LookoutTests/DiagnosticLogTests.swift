import Foundation
import Testing

/// Diagnostics on standard error: plain "lookout: ..." sentences on a file, a terminal or a pipe;
/// sd-daemon priority prefixes when standard error is the journal ($JOURNAL_STREAM names it);
/// --log-level (and the file's log-level) leaves the less severe out.
@Suite struct DiagnosticLogTests {
    /// Runs the binary to its end with standard error going to a file; the file's lines and the
    /// exit status. `journal`: $JOURNAL_STREAM names that file (as systemd names its stream).
    static func run(_ arguments: [String], journal: Bool = false, environment extra: [String: String] = [:]) throws -> (lines: [String], status: Int32) {
        let path = NSTemporaryDirectory() + "lookout-stderr-\(UUID().uuidString)"
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        var environment = childEnvironment([:])
        if journal {
            var info = stat()
            try #require(stat(path, &info) == 0)
            environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        }
        environment.merge(extra) { $1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lookoutBinary)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (text.split(separator: "\n").map(String.init), process.terminationStatus)
    }

    static let clip = ["run", "--types", "qr", "-i", Fixtures.path("sample.mjpeg")]
    static let summary = "sample (\(Fixtures.path("sample.mjpeg"))): "

    @Test func plainSentencesOffTheJournal() throws {
        let (lines, status) = try Self.run(Self.clip)
        #expect(status == 0)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("lookout: " + Self.summary) == true, "\(lines)")
    }

    @Test func priorityPrefixesOnTheJournal() throws {
        let (lines, status) = try Self.run(Self.clip, journal: true)
        #expect(status == 0)
        #expect(lines.count == 1, "\(lines)")
        // The summary is a notice (5); journald names the program itself.
        #expect(lines.first?.hasPrefix("<5>" + Self.summary) == true, "\(lines)")

        let missing = try Self.run(["run", "-i", "/nonexistent/clip.mjpeg"], journal: true)
        #expect(missing.status == 66)
        #expect(missing.lines.count == 1, "\(missing.lines)")
        #expect(missing.lines.first?.hasPrefix("<3>") == true, "\(missing.lines)")
        #expect(missing.lines.first?.contains("/nonexistent/clip.mjpeg") == true, "\(missing.lines)")
    }

    @Test func aJournalStreamThatIsNotStandardErrorIsIgnored() throws {
        // Inherited by a child whose standard error went elsewhere: the variable alone says nothing.
        var info = stat()
        try #require(stat("/dev/null", &info) == 0)
        let (lines, status) = try Self.run(Self.clip, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
        #expect(status == 0)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("lookout: " + Self.summary) == true, "\(lines)")
    }

    @Test func logLevelLeavesTheLessSevereOut() throws {
        // The summary is a notice: left out from warning up; an error is written at error.
        let warning = try Self.run(Self.clip + ["--log-level", "warning"])
        #expect(warning.status == 0)
        #expect(warning.lines.isEmpty, "\(warning.lines)")
        let notice = try Self.run(Self.clip + ["--log-level", "notice"])
        #expect(notice.lines.count == 1, "\(notice.lines)")
        let error = try Self.run(["run", "--log-level", "error", "-i", "/nonexistent/clip.mjpeg"])
        #expect(error.status == 66)
        #expect(error.lines.count == 1, "\(error.lines)")
        #expect(error.lines.first?.hasPrefix("lookout: ") == true, "\(error.lines)")
        let critical = try Self.run(["run", "--log-level", "critical", "-i", "/nonexistent/clip.mjpeg"])
        #expect(critical.status == 66)
        #expect(critical.lines.isEmpty, "\(critical.lines)")

        let refused = try Self.run(Self.clip + ["--log-level", "loud"])
        #expect(refused.status == 64)
        #expect(refused.lines == ["lookout: The value 'loud' is invalid for '--log-level <level>': allowed trace, debug, info, notice, warning, error or critical. See lookout --help."],
                "\(refused.lines)")
    }

    @Test func traceShowsWhatIsSentToSystemd() throws {
        let listener = try NotifyListener()
        let traced = try Self.run(Self.clip + ["--log-level", "trace"], environment: listener.environment())
        #expect(traced.status == 0)
        #expect(traced.lines.contains { $0.hasPrefix("lookout: sd_notify: READY=1 STATUS=sample: ") }, "\(traced.lines)")
        #expect(traced.lines.contains("lookout: sd_notify: STOPPING=1 STATUS=stopping"), "\(traced.lines)")
        // At the default level, only the summary.
        let plain = try Self.run(Self.clip, environment: listener.environment())
        #expect(plain.lines.count == 1, "\(plain.lines)")
        #expect(plain.lines.first?.hasPrefix("lookout: " + Self.summary) == true, "\(plain.lines)")
    }

    @Test func theFilesLogLevelKey() throws {
        let path = NSTemporaryDirectory() + "lookout-log-level-\(UUID().uuidString).yml"
        try "output:\n  log-level: warning\ndetection:\n  types: [qr]\ncameras:\n  sample:\n    input: \(Fixtures.path("sample.mjpeg"))\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let quiet = try Self.run(["run", "--config", path])
        #expect(quiet.status == 0)
        #expect(quiet.lines.isEmpty, "\(quiet.lines)")
        // The command line's option wins over the file's.
        let told = try Self.run(["run", "--config", path, "--log-level", "info"])
        #expect(told.lines.count == 1, "\(told.lines)")
        #expect(told.lines.first?.hasPrefix("lookout: sample (") == true, "\(told.lines)")
    }
}
