import Foundation
import Testing
@testable import Lookout

/// A scratch folder that is removed afterwards.
final class ScratchFolder {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "lookout-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes an executable shell script (the hook under test, not Lookout, uses a shell).
    func script(_ name: String, _ body: String) throws -> String {
        let file = path + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o755)
        return file
    }

    func read(_ name: String) -> Data? { FileManager.default.contents(atPath: path + "/" + name) }
}

@Suite("Hooks", .serialized)
struct HookTests {
    @Test func aHostilePayloadReachesTheHookAsExactBytesAndRunsNothing() throws {
        let scratch = try ScratchFolder()
        unlink("/tmp/x")
        // The hook records its stdin, its argv and the value variable, byte for byte.
        let hook = try scratch.script("record", """
            cat > "$OUT/stdin.json"
            printf '%s\\n' "$#" "$@" > "$OUT/argv"
            printf '%s' "$LOOKOUT_VALUE" > "$OUT/value"
            printf '%s' "$LOOKOUT_EVENT $LOOKOUT_TYPE" > "$OUT/kind"
            """)
        let home = scratch.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: home + "/canary"))
        let result = try lookout(["run", "--input", Fixtures.path("qr-shell.mjpeg"), "--events", "changes",
                                  "--on-code", hook, "fixed-arg", "-q"],
                                 environment: ["OUT": scratch.path, "HOME": home])
        #expect(result.status == 0, "\(result.stderr)")
        let payload = try Fixtures.bytes("qr-shell.bin")
        let stdin = try #require(scratch.read("stdin.json"))
        let event = try #require(try JSONSerialization.jsonObject(with: stdin) as? [String: Any])
        #expect(event["kind"] as? String == "code")
        #expect(Array((event["value"] as? String ?? "").utf8) == payload)
        #expect(scratch.read("value").map(Array.init) == payload)
        #expect(scratch.read("argv").map { String(decoding: $0, as: UTF8.self) } == "1\nfixed-arg\n")
        #expect(scratch.read("kind").map { String(decoding: $0, as: UTF8.self) } == "code qr")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/x"), "the payload ran a command")
        #expect(FileManager.default.fileExists(atPath: home + "/canary"))
        // Standard output carried the event line and nothing from the hook.
        #expect(result.lines.count == 1)
    }

    @Test func aHangingHookIsStoppedAndAFailingOneReportedWhileDetectionGoesOn() throws {
        let scratch = try ScratchFolder()
        let hang = try scratch.script("hang", "sleep 30\n")
        let started = Date()
        let result = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--events", "changes",
                                  "--dedupe", "300ms", "--on-code", hang, "--hook-timeout", "500ms"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0)
        // Every frame analysed and every event written although each hook hung.
        #expect(result.stderr.contains("80 frames read, 80 analysed"))
        #expect(try jsonObjects(result).filter { $0["kind"] as? String == "code" }.count == 3)
        #expect(result.stderr.components(separatedBy: "did not finish within 0.5 s").count - 1 == 3, "\(result.stderr)")
        #expect(elapsed < 10, "took \(elapsed) s")

        let failing = try scratch.script("fail", "exit 3\n")
        let failed = try lookout(["run", "--input", Fixtures.path("qr-shell.mjpeg"), "--events", "changes", "--on-code", failing])
        #expect(failed.status == 0)
        #expect(failed.stderr.contains("exited with status 3"))
    }

    @Test func presenceHooksGetTheStateAndAMissingProgramIsAUsageError() throws {
        let scratch = try ScratchFolder()
        let hook = try scratch.script("presence", "echo \"$LOOKOUT_STATE $LOOKOUT_FACES\" >> \"$OUT/states\"\n")
        let result = try lookout(["run", "--input", Fixtures.path("events-presence.mjpeg"), "--fps", "10", "--on-presence", hook, "-q"],
                                 environment: ["OUT": scratch.path])
        #expect(result.status == 0)
        #expect(scratch.read("states").map { String(decoding: $0, as: UTF8.self) } == "on 1\noff 0\n")
        // --events frames (the default) still writes per-frame lines.
        #expect(try jsonObjects(result).allSatisfy { $0["kind"] as? String == "face" })

        let missing = try lookout(["run", "--input", Fixtures.path("qr-shell.mjpeg"), "--on-code", "no-such-program-lookout"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "lookout: --on-code: no-such-program-lookout: command not found.\n")
    }

    @Test func onRealTimeInputDetectionNeverWaitsForASlowHook() throws {
        // The code clip paced at 10 fps lasts 8 s and shows a code three times; each hook takes
        // 3 s. Detection keeps the camera's pace: every frame is analysed, none dropped late, the
        // code events come when the codes appear, and the run ends with the clip, only then
        // waiting for the hooks still running.
        let scratch = try ScratchFolder()
        let slow = try scratch.script("slow", "sleep 3\n")
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("events-codes.mjpeg"), "--realtime",
                                                           "--fps", "10", "--events", "changes", "--dedupe", "300ms",
                                                           "--on-code", slow, "--hook-jobs", "1", "--stats", "-q"])
        let started = Date()
        #expect(process.output.wait(timeout: 30) { $0.contains { $0.contains("\"kind\":\"stats\"") } })
        let detectionTime = Date().timeIntervalSince(started)
        let status = process.waitForExit(timeout: 30)
        let total = Date().timeIntervalSince(started)
        #expect(status == 0)
        let lines = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.filter { $0["kind"] as? String == "code" }.count == 3)
        let stats = try #require(lines.last { $0["kind"] as? String == "stats" })
        #expect(stats["frames_analysed"] as? Int == 80, "\(stats)")
        #expect((stats["dropped"] as? [String: Int])?["late"] == 0, "\(stats)")
        // Three 3 s hooks, one at a time, need 9 s from the first code; the clip needs 8 s, and
        // detection ends with it, well before the hooks (on a machine slow enough to need more
        // than the clip's time, as under ThreadSanitizer, still before them).
        #expect(total >= 9, "the hooks were not waited for at exit (\(total) s)")
        #expect(detectionTime + 1 < total, "detection took \(detectionTime) s of \(total) s: it waited for the hooks")
        #expect(detectionTime < 8 + 4, "detection took \(detectionTime) s")
    }
}
