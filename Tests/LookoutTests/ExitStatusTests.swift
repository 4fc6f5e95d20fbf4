import Foundation
import Testing
@testable import Lookout

/// The documented exit statuses that other suites do not reach, each with its one-line message,
/// and the stats line's drop counts on real-time input.
@Suite("Exit statuses", .serialized)
struct ExitStatusTests {
    @Test func anUnreadablePasswordFileExits66() throws {
        let run = try measuredLookout(["run", "--input", Fixtures.path("qr-mono.y4m"), "--mqtt", "mqtt://127.0.0.1:1/x",
                                       "--mqtt-password-file", "/nonexistent/password"])
        expectRefusal(run, status: 66, saying: "/nonexistent/password")
        let tls = try measuredLookout(["run", "--input", Fixtures.path("qr-mono.y4m"), "--mqtt", "mqtts://127.0.0.1:1/x",
                                       "--mqtt-ca", "/nonexistent/ca.pem"])
        expectRefusal(tls, status: 66, saying: "/nonexistent/ca.pem")
    }

    @Test func libmosquittoMissingExits1() throws {
        // A private mount namespace hides the library for this one run (root, as in CI).
        let library = ["/usr/lib/x86_64-linux-gnu/libmosquitto.so.1", "/lib/x86_64-linux-gnu/libmosquitto.so.1"]
            .first { FileManager.default.fileExists(atPath: $0) }
        let path = try #require(library, "libmosquitto is not installed")
        let script = "mount --bind /dev/null \(path) && exec \"$0\" run --input \"$1\" --mqtt mqtt://127.0.0.1:1/x -q"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "sh", "-c", script, lookoutBinary, Fixtures.path("qr-mono.y4m")]
        let stateHome = ScratchStateHome([:])
        process.environment = stateHome.environment
        defer { withExtendedLifetime(stateHome) {} }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1, "\(message)")
        #expect(message.contains("MQTT needs libmosquitto") && message.split(separator: "\n").count == 1, "\(message)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSecondSignalExitsAtOnceWith130Or143(signal: Int32) throws {
        // Standard output is a pipe nobody reads, so the first signal's stop waits on it.
        let clip = try Fixtures.bytes("sample.mjpeg")
        let path = NSTemporaryDirectory() + "lookout-second-signal-\(signal)-\(UUID().uuidString).mjpeg"
        _ = FileManager.default.createFile(atPath: path, contents: Data(clip + clip + clip))
        defer { unlink(path) }
        let errors = path + ".err"
        defer { unlink(errors) }
        let (pid, stalled) = try spawnWithStalledOutput([lookoutBinary, "run", "--input", path, "--realtime"], errors: errors)
        defer { close(stalled) }
        #expect(waitUntilBlockedOnOutput(pid), "lookout never blocked on its standard output")
        kill(pid, signal)
        // The first signal's stop waits on the output; a later one ends the process at once. Sent
        // again until it does: two signals sent before the first is handled count as one.
        var status: Int32?
        _ = eventually(timeout: 30) {
            kill(pid, signal)
            status = reapedStatus(of: pid)
            return status != nil
        }
        if status == nil { kill(pid, SIGKILL) }
        #expect(status ?? waitForStatus(pid, timeout: 10) == 128 + signal)
        // Not the stop's own bound on the output (which also exits 128 + signal), but the second signal.
        let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(!message.contains("took no lines"), "the stop ran into its output deadline: \(message)")
    }

    @Test func lateDropsOnRealTimeInputAreCountedInTheStatsLine() throws {
        // Paced at 1000 fps, the detectors cannot keep up: most frames drop as late, none is lost
        // without a count.
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--realtime", "--fps", "1000", "--stats", "-q"])
        #expect(result.status == 0)
        let stats = try #require(try jsonObjects(result).last)
        let dropped = try #require(stats["dropped"] as? [String: Int])
        let read = try #require(stats["frames_read"] as? Int), analysed = try #require(stats["frames_analysed"] as? Int)
        #expect(read == 60)
        #expect(dropped["late"] ?? 0 > 0)
        #expect(analysed + (dropped["late"] ?? 0) == read, "\(stats)")
    }

    @Test func lineSeparatorsAndDeleteAreEscapedInLines() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("value"); writer.string("a\u{2028}b\u{2029}c\u{7F}d")
        writer.endObject()
        let line = String(decoding: writer.bytes, as: UTF8.self)
        #expect(line == #"{"value":"a\u2028b\u2029c\u007fd"}"#, "\(line)")
    }
}
