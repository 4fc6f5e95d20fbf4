import Foundation
import Testing

/// Every signal Lookout acts on, sent to the built binary during a recording: the stop signals
/// stop cleanly (status 0, the summary written, the clip closed with its duration), the others
/// leave it running and producing.
@Suite("Signals", .serialized)
struct SignalTests {
    /// Two minutes of a small 10 fps MJPEG made by ffmpeg once per test process (over any file a
    /// killed run left under the same process id), and removed when it exits: paced with
    /// --realtime, a run outlives any test that stops it.
    static let pacedClip: String = {
        let path = pacedClipPath
        atexit { unlink(SignalTests.pacedClipPath) }
        _ = try? RecordingTests.command("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10",
                                                            "-t", "120", "-f", "mjpeg", "-y", path])
        return path
    }()

    private static let pacedClipPath = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-paced-\(getpid()).mjpeg").path

    static let pacedInput = ["--input", pacedClip, "--fps", "10", "--realtime"]

    /// A recording run of the paced clip, once its clip file exists; with the clips' folder.
    static func recordingRun(_ extra: [String] = []) throws -> (BackgroundProcess, String) {
        let directory = RecordingTests.temporaryDirectory()
        let process = try BackgroundProcess(lookoutBinary, ["run"] + pacedInput + ["--record", directory, "--record-on", "always"] + extra)
        _ = eventually(timeout: 60) { !clips(in: directory).isEmpty || !process.isRunning }
        try #require(clips(in: directory).count == 1, "no clip started: \(process.errors.lines)")
        // A second of video in the clip (a clip of one frame has no duration to show).
        try #require(framesReadAfter(10, process) != nil, "the run stopped reading: \(process.errors.lines)")
        return (process, directory)
    }

    static func clips(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".mkv") }.sorted()
    }

    /// The clip's duration as ffprobe reads it from the file's header (nil: none).
    static func duration(of path: String) throws -> Double? {
        let result = try RecordingTests.command("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration",
                                                                     "-of", "default=noprint_wrappers=1:nokey=1", path])
        try #require(result.status == 0, "ffprobe rejects \(path): \(result.errors)")
        return Double(String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Stops `process` with `number`; expects a clean stop and the clip in `directory` closed.
    static func expectCleanStop(_ process: BackgroundProcess, by number: Int32, clipsIn directory: String) throws {
        process.signal(number)
        let status = process.waitForExit(timeout: 60)
        #expect(status == 0, "status after signal \(number): \(process.errors.lines)")
        // The summary, on standard error without --stats.
        #expect(process.errors.lines.contains { $0.contains("frames read") && $0.contains("analysed") }, "\(process.errors.lines)")
        let clips = clips(in: directory)
        try #require(clips.count == 1, "\(clips)")
        let name = try #require(clips.first)
        let seconds = try #require(try duration(of: directory + "/" + name), "\(name) has no duration")
        #expect(seconds > 0, "\(name): \(seconds) s")
        // The finished clip's line.
        #expect(process.output.lines.contains { $0.contains("\"kind\":\"recording\"") && $0.contains(name) }, "\(process.output.lines.suffix(3))")
    }

    /// The summaries SIGUSR1 has written so far: frames read, in order.
    static func framesReadReported(_ process: BackgroundProcess) -> [Int] {
        process.errors.lines.compactMap { line -> Int? in
            guard let range = line.range(of: " frames read") else { return nil }
            return Int(line[..<range.lowerBound].split(separator: " ").last ?? "")
        }
    }

    /// Sends SIGUSR1 until a summary reports more frames read than `previous`; the new figure.
    static func framesReadAfter(_ previous: Int, _ process: BackgroundProcess) -> Int? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && process.isRunning {
            let count = framesReadReported(process).count
            process.signal(SIGUSR1)
            guard process.errors.wait(timeout: 30, until: { _ in framesReadReported(process).count > count }) else { return nil }
            if let last = framesReadReported(process).last, last > previous { return last }
        }
        return nil
    }

    @Test(arguments: [SIGTERM, SIGQUIT, SIGINT])
    func aStopSignalStopsCleanlyAndClosesTheClip(number: Int32) throws {
        let (process, directory) = try Self.recordingRun()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.expectCleanStop(process, by: number, clipsIn: directory)
        #expect(!process.errors.lines.contains { $0.contains("Backtrace") || $0.contains("Crash") }, "\(process.errors.lines)")
    }

    @Test func sigusr1WritesTheSummaryAndTheRunGoesOn() throws {
        let (process, directory) = try Self.recordingRun()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try #require(Self.framesReadAfter(0, process), "no summary after SIGUSR1: \(process.errors.lines)")
        let later = try #require(Self.framesReadAfter(first, process), "frames stopped after SIGUSR1: \(process.errors.lines)")
        #expect(later > first)
        #expect(process.isRunning)
        try Self.expectCleanStop(process, by: SIGTERM, clipsIn: directory)
    }

    @Test(arguments: [SIGHUP, SIGUSR2, SIGALRM])
    func anIgnoredSignalLeavesTheRunGoing(number: Int32) throws {
        let (process, directory) = try Self.recordingRun()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try #require(Self.framesReadAfter(0, process), "no summary: \(process.errors.lines)")
        process.signal(number)
        // Frames still read after the signal: the run goes on.
        let after = try #require(Self.framesReadAfter(before, process), "frames stopped after signal \(number): \(process.errors.lines)")
        #expect(after > before)
        #expect(process.isRunning)
        let logged = process.errors.lines.filter { $0.contains("SIGHUP") }
        #expect(logged == (number == SIGHUP ? ["lookout: SIGHUP: there is no configuration file to reload (run with --config FILE); ignored"] : []))
        try Self.expectCleanStop(process, by: SIGTERM, clipsIn: directory)
    }

    @Test func aSecondStopSignalExitsAtOnce() throws {
        let (process, directory) = try Self.recordingRun()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        process.signal(SIGTERM)
        process.signal(SIGTERM)
        let status = process.waitForExit(timeout: 60)
        // Either the first stop was over before the second signal came (0) or the second cut it short.
        #expect(status == 0 || status == 143, "status \(status)")
    }

    /// Whether `pid`'s main thread blocks `number` (/proc/PID/status, SigBlk).
    static func blocks(_ number: Int32, pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
              let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(number - 1)) != 0
    }

    @Test func aSigintSentAtStartWhileInheritedAsIgnoredStillStops() throws {
        let directory = RecordingTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The shell ignores SIGINT and execs Lookout with it ignored, as `lookout &` in a script.
        let arguments = ["run"] + Self.pacedInput + ["--record", directory, "--record-on", "always"]
        let process = try BackgroundProcess("/bin/sh", ["-c", "trap '' INT; exec \"$0\" \"$@\"", lookoutBinary] + arguments)
        // As soon as Lookout blocks SIGINT (first thing in main, long before the run is ready):
        // before that, an ignored signal is discarded by the kernel, whatever the program does.
        _ = eventually(timeout: 60) { Self.blocks(SIGINT, pid: process.pid) || !process.isRunning }
        try #require(Self.blocks(SIGINT, pid: process.pid), "SIGINT never blocked: \(process.errors.lines)")
        process.signal(SIGINT)
        // The input lasts two minutes: only the SIGINT ends the run within the wait.
        let status = process.waitForExit(timeout: 60)
        #expect(status == 0, "\(process.errors.lines)")
        #expect(process.errors.lines.contains { $0.contains("frames read") }, "\(process.errors.lines)")
    }
}
