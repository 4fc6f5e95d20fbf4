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
        // Written through a close-on-exec descriptor: one inherited by a child another suite starts
        // meanwhile would keep the script open for writing, and running it would fail (ETXTBSY).
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(fd >= 0, "cannot create \(file)")
        defer { close(fd) }
        let bytes = Array(("#!/bin/sh\n" + body).utf8)
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
        return file
    }

    func read(_ name: String) -> Data? { FileManager.default.contents(atPath: path + "/" + name) }
}

/// The processes of process group `group` that are alive (a zombie waiting to be reaped by
/// init is not), from /proc/PID/stat: "PID (COMMAND) STATE PPID PGRP ...".
func livingProcesses(inGroup group: pid_t) -> [pid_t] {
    let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    return pids.filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 2 && fields[0] != "Z" && pid_t(fields[2]) == group
    }
}

@Suite("Hooks", .serialized)
struct HookTests {
    @Test func aHostilePayloadReachesTheHookAsExactBytesAndRunsNothing() throws {
        let scratch = try ScratchFolder()
        // The payload would touch /tmp/x: it must neither appear nor change (another program may
        // have made one; it is left alone).
        func canary() -> Date? { (try? FileManager.default.attributesOfItem(atPath: "/tmp/x"))?[.modificationDate] as? Date }
        let before = canary()
        // The hook records its stdin, its argv and the value variable, byte for byte.
        let hook = try scratch.script("record", """
            cat > "$OUT/stdin.json"
            printf '%s\\n' "$#" "$@" > "$OUT/argv"
            printf '%s' "$LOOKOUT_VALUE" > "$OUT/value"
            printf '%s' "$LOOKOUT_EVENT $LOOKOUT_TYPE $LOOKOUT_AIM_ID" > "$OUT/kind"
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
        #expect(scratch.read("kind").map { String(decoding: $0, as: UTF8.self) } == "code qr ]Q1")
        #expect(canary() == before, "the payload ran a command")
        #expect(FileManager.default.fileExists(atPath: home + "/canary"))
        // Standard output carried the event line and nothing from the hook.
        #expect(result.lines.count == 1)
    }

    @Test func aHangingHookIsStoppedAndAFailingOneReportedWhileDetectionGoesOn() throws {
        let scratch = try ScratchFolder()
        // Each hook notes its process group (its own: Lookout starts it so), then hangs in a child.
        let hang = try scratch.script("hang", "echo $$ >> \"$OUT/groups\"\nsleep 300\n")
        let result = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--events", "changes",
                                  "--dedupe", "300ms", "--on-code", hang, "--hook-timeout", "500ms"], environment: ["OUT": scratch.path])
        #expect(result.status == 0)
        // Every frame analysed and every event written although each hook hung.
        #expect(result.stderr.contains("80 frames read, 80 analysed"))
        #expect(try jsonObjects(result).filter { $0["kind"] as? String == "code" }.count == 3)
        // Said for the first, the other two counted (the same warning again within a minute).
        let stopped = result.stderr.split(separator: "\n").filter { $0.contains("did not finish within 0.5 s; stopped it") }
        #expect(stopped.count == 2 && stopped.last?.contains("; stopped it (said 2 more times within ") == true, "\(result.stderr)")
        // Stopped: nothing of any of the three hooks, the shell or its sleep, is left running.
        let groups = (scratch.read("groups").map { String(decoding: $0, as: UTF8.self) } ?? "").split(separator: "\n").compactMap { pid_t($0) }
        #expect(groups.count == 3, "\(groups)")
        for group in groups {
            #expect(livingProcesses(inGroup: group).isEmpty, "hook group \(group) still runs")
        }

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
        // --events frames (the default) still writes per-frame lines: the face on each frame it
        // is confirmed on.
        let lines = try jsonObjects(result)
        #expect(lines.count == 38 && lines.allSatisfy { $0["kind"] as? String == "face" }, "\(lines.count) lines")

        let missing = try lookout(["run", "--input", Fixtures.path("qr-shell.mjpeg"), "--on-code", "no-such-program-lookout"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "lookout: --on-code: no-such-program-lookout: command not found.\n")
    }

    @Test func onRealTimeInputDetectionNeverWaitsForASlowHook() throws {
        // The code clip paced at 10 fps lasts 8 s and shows a code three times; each hook waits
        // until the test lets it go, one at a time. Detection keeps the camera's pace: it reads
        // and analyses the whole clip, the code events come when the codes appear while the first
        // hook still waits, and the run ends with the clip, then waits for the hooks (and writes
        // its summary once they are done).
        let scratch = try ScratchFolder()
        let slow = try scratch.script("slow", """
            echo "start $LOOKOUT_VALUE" >> "$OUT/hooks"
            while [ ! -e "$OUT/go" ]; do sleep 0.05; done
            echo "end $LOOKOUT_VALUE" >> "$OUT/hooks"

            """)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("events-codes.mjpeg"), "--realtime",
                                                           "--fps", "10", "--events", "changes", "--dedupe", "300ms",
                                                           "--on-code", slow, "--hook-jobs", "1", "--hook-timeout", "120s",
                                                           "--stats", "-q"],
                                            environment: ["OUT": scratch.path])
        func hooks() -> [String] {
            (scratch.read("hooks").map { String(decoding: $0, as: UTF8.self) } ?? "").split(separator: "\n").map(String.init)
        }
        #expect(process.output.wait(timeout: 120) { $0.filter { $0.contains("\"kind\":\"code\"") }.count == 3 }, "\(process.errors.lines)")
        // The third code is at 6 s: the first hook still waits, the other two are queued, and the
        // process waits for them.
        #expect(eventually { hooks() == ["start été"] }, "\(hooks())")
        #expect(process.isRunning, "the hooks were not waited for at exit")
        _ = FileManager.default.createFile(atPath: scratch.path + "/go", contents: Data())
        #expect(process.waitForExit(timeout: 60) == 0)
        #expect(hooks() == ["start été", "end été", "start été", "end été", "start été", "end été"])
        let lines = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let stats = try #require(lines.last { $0["kind"] as? String == "stats" })
        // Every frame read; each analysed or, on a machine too loaded for 10 fps, dropped as late:
        // none waited for a hook.
        let analysed = try #require(stats["frames_analysed"] as? Int), late = (stats["dropped"] as? [String: Int])?["late"] ?? 0
        #expect(stats["frames_read"] as? Int == 80 && analysed + late == 80, "\(stats)")
        // Each appearance's event at the code's first frame (0, 1.5 and 6 s); with frames dropped
        // as late, at the first one analysed while it is in view.
        let times = lines.filter { $0["kind"] as? String == "code" }.compactMap { $0["pts"] as? Double }
        let appearances: [Double] = [0, 1.5, 6]
        if late == 0 {
            #expect(times == appearances)
        } else {
            #expect(times.count == 3 && zip(times, appearances).allSatisfy { $0 >= $1 && $0 < $1 + 1 }, "\(times)")
        }
    }
}
