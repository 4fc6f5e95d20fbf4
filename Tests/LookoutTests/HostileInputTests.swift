import Foundation
import Testing
@testable import Lookout

/// What a run of the built binary did, with its peak resident memory (from wait4).
struct MeasuredRun {
    var status: Int32
    var stdout: String
    var stderr: String
    var peakMegabytes: Double
    var seconds: Double
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs `lookout` with raw argument bytes (names that are not UTF-8 survive), standard input from
/// `stdin` (nil: closed), and measures it.
func measuredLookout(_ arguments: [[UInt8]], stdin: String? = "/dev/null", timeout: Double = 60) throws -> MeasuredRun {
    let directory = NSTemporaryDirectory() + "lookout-measured-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) } else { posix_spawn_file_actions_addclose(&actions, 0) }
    posix_spawn_file_actions_addopen(&actions, 1, directory + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, directory + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([Array(lookoutBinary.utf8)] + arguments).map { bytes -> UnsafeMutablePointer<CChar>? in
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
    } + [nil]
    defer { argv.forEach { $0?.deallocate() } }
    let stateHome = ScratchStateHome([:])
    let envp = stateHome.environment.map { strdup("\($0)=\($1)") } + [nil]
    defer { envp.forEach { free($0) }; withExtendedLifetime(stateHome) {} }
    var pid: pid_t = 0
    let start = Date()
    try #require(posix_spawn(&pid, lookoutBinary, &actions, nil, argv, envp) == 0)
    var status: Int32 = 0
    var peakKilobytes = 0
    let deadline = Date().addingTimeInterval(timeout)
    while waitpid(pid, &status, WNOHANG) == 0 {
        peakKilobytes = max(peakKilobytes, highWaterMark(of: pid) ?? 0)
        if Date() > deadline {
            kill(pid, SIGKILL)
            Issue.record("lookout did not finish within \(timeout) s")
        }
        Thread.sleep(forTimeInterval: 0.005)
    }
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    func read(_ name: String) -> String { (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? "" }
    return MeasuredRun(status: exit, stdout: read("out"), stderr: read("err"), peakMegabytes: Double(peakKilobytes) / 1024,
                       seconds: Date().timeIntervalSince(start))
}

/// The peak resident memory of `pid` once it runs lookout (VmHWM, in KB). Not wait4's ru_maxrss:
/// a child spawned with vfork counts the test process's own memory until it executes lookout.
func highWaterMark(of pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          status.hasPrefix("Name:\tlookout\n") else { return nil }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
}

/// Under AddressSanitizer (`swift test --sanitize=address` builds lookout with it too) memory
/// figures are the sanitizer's: peak-memory expectations hold for ordinary builds only.
let runsUnderSanitizer: Bool = {
    let program = dlopen(nil, RTLD_NOW)
    return dlsym(program, "__asan_init") != nil || dlsym(program, "__tsan_init") != nil
}()

/// Expects a run's peak memory below `megabytes` (not measured under a sanitizer).
func expectPeak(_ run: MeasuredRun, below megabytes: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    guard !runsUnderSanitizer else { return }
    #expect(run.peakMegabytes > 0, "no memory measured", sourceLocation: sourceLocation)
    #expect(run.peakMegabytes < megabytes, "peak \(run.peakMegabytes) MB", sourceLocation: sourceLocation)
}

func measuredLookout(_ arguments: [String], stdin: String? = "/dev/null", timeout: Double = 60) throws -> MeasuredRun {
    try measuredLookout(arguments.map { Array($0.utf8) }, stdin: stdin, timeout: timeout)
}

/// A refusal: the exit status, one line on standard error, and what it must say.
func expectRefusal(_ run: MeasuredRun, status: Int32, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(run.status == status, "status \(run.status): \(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderrLines.count == 1, "not one line: \(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderr.contains(words), "\(run.stderr) does not say \(words)", sourceLocation: sourceLocation)
    #expect(!run.stderr.contains("OpenCV(") && !run.stderr.contains("libpng") && !run.stderr.contains("Fatal error"),
            sourceLocation: sourceLocation)
}

@Suite("Hostile input", .serialized)
final class HostileInputTests {
    /// Each test's own folder for the files it makes, removed when the test ends.
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "lookout-hostile-\(UUID().uuidString)/"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func y4m(_ header: String, frames: Int = 1, frameBytes: Int = 0) -> [UInt8] {
        Array((header + "\n").utf8) + (0..<frames).flatMap { _ in Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: frameBytes) }
    }

    /// A PNG whose header declares `width` x `height`, its rows of zeros compressed to little.
    func pngBomb(width: Int, height: Int) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 0, 0, 0, 0]
        // A zlib stream of stored blocks would be large; a few deflate bytes are enough for a
        // decoder to start, which is what a refusal must come before.
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0x00, 0x00]) + chunk("IEND", [])
    }

    @Test func standardInputClosedExits66AtOnce() throws {
        let run = try measuredLookout(["run", "--input", "-"], stdin: nil, timeout: 60)
        // The library's sentence, and the command line's hint of what to change.
        expectRefusal(run, status: 66, saying: "standard input is closed, and the input is standard input (-); pipe a stream into lookout or name a file with --input")
    }

    @Test func y4mHeaderRatesOutOfRangeAreRefused() throws {
        for rate in ["1e-308:1", "0:1", "1:0", "30:1e-308", "nan:1", "inf:1", "2000:1", "-30:1", ":"] {
            let path = file("rate.y4m", y4m("YUV4MPEG2 W16 H16 F\(rate) Cmono", frameBytes: 256))
            let run = try measuredLookout(["run", "--input", path])
            expectRefusal(run, status: 1, saying: "is not a rate between 0.001 and 1000")
        }
        let slow = file("slow.y4m", y4m("YUV4MPEG2 W16 H16 F1:1000 Cmono", frames: 3, frameBytes: 256))
        let run = try measuredLookout(["run", "--input", slow, "--stats", "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"frames_read\":3"))
    }

    @Test func sizesAtTheBudgetAreTakenAndOnePastItRefused() throws {
        let atLimit = file("limit.y4m", y4m("YUV4MPEG2 W64 H64 F10:1 Cmono", frames: 2, frameBytes: 64 * 64))
        let taken = try measuredLookout(["run", "--input", atLimit, "--max-pixels", "4096", "--stats", "-q"])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(taken.stdout.contains("\"frames_analysed\":2"))
        let past = file("past.y4m", y4m("YUV4MPEG2 W65 H64 F10:1 Cmono", frames: 2, frameBytes: 65 * 64))
        expectRefusal(try measuredLookout(["run", "--input", past, "--max-pixels", "64x64"]), status: 66,
                      saying: "past.y4m: over the pixel budget: 65x64 is more than the 4096 pixels --max-pixels allows")
        // The default budget: a 16384x16384 header is refused before its frame buffer exists.
        let huge = file("huge.y4m", y4m("YUV4MPEG2 W16384 H16384 F25:1", frames: 1))
        let run = try measuredLookout(["run", "--input", huge])
        expectRefusal(run, status: 66, saying: "huge.y4m: over the pixel budget: 16384x16384 is more than the 67108864 pixels")
        expectPeak(run, below: 150)
    }

    @Test func jpegFramesBeyondTheBudgetAreCorruptAndTheNextIsAnalysed() throws {
        let good = try Fixtures.bytes("frame0.jpg")
        let sof = try DamagedJPEG.frameHeader(good)
        var huge = good
        huge.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFF, 0xFF, 0xFF, 0xFF]) // 65535x65535
        let path = file("huge.mjpeg", huge + good + huge + good)
        for extra in [[], ["--motion-threshold", "4"], ["--code-resolution", "half"]] {
            let run = try measuredLookout(["run", "--input", path, "--types", "qr", "--stats", "-q"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"corrupt\":2"), "\(extra): \(run.stdout)")
            #expect(run.stdout.components(separatedBy: "\"kind\":\"qr\"").count - 1 == 2, "\(extra)")
            expectPeak(run, below: 150)
        }
    }

    @Test func aPNGBombIsRefusedFromItsHeader() throws {
        let path = file("bomb.png", pngBomb(width: 30000, height: 30000))
        let run = try measuredLookout(["scan", path])
        expectRefusal(run, status: 1, saying: "declares 30000x30000 pixels, more than the 67108864 that --max-pixels allows")
        expectPeak(run, below: 150)
    }

    @Test func unreadableImagesSayWhatIsWrongInOneSentence() throws {
        let png = try Fixtures.bytes("qr-kanji.png")
        let cases: [(String, [UInt8]?, Int32, String)] = [
            ("empty.png", [], 1, "is an empty file"),
            ("text.png", Array("hello".utf8), 1, "is not an image (it starts with bytes 68 65 6C 6C 6F)"),
            ("cut.png", Array(png.prefix(100)), 1, "is a damaged or unsupported PNG image"),
            ("cut.jpg", Array(try Fixtures.bytes("frame0.jpg").prefix(300)), 1, "is a damaged or unsupported JPEG image"),
            ("folder", nil, 66, "is a directory"),
        ]
        for (name, bytes, status, words) in cases {
            let path: String
            if let bytes { path = file(name, bytes) } else {
                path = directory + name
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            expectRefusal(try measuredLookout(["scan", path]), status: status, saying: words)
            let verbose = try measuredLookout(["scan", "--verbose", path])
            #expect(verbose.status == status)
        }
        let verbose = try measuredLookout(["scan", "--verbose", file("cut2.png", Array(png.prefix(100)))])
        #expect(verbose.stderr.contains("the library said: libpng error"), "\(verbose.stderr)")
    }

    @Test func unusableFaceModelsSayWhyInOneSentence() throws {
        let folder = directory + "models"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (path, words) in [(file("empty.xml", []), "it is an empty file"), (file("text.xml", Array("<x/>".utf8)), "it is not a Haar cascade"),
                              (folder, "it is a directory"), (directory + "missing.xml", "no such file")] {
            let run = try measuredLookout(["run", "--input", Fixtures.path("qr-mono.y4m"), "--face-model", path])
            expectRefusal(run, status: 1, saying: "the face model \(path) cannot be loaded: \(words)")
        }
    }

    @Test func optionsAreCheckedAtTheirBounds() throws {
        let input = Fixtures.path("qr-mono.y4m")
        let accepted = [["--fps", "0.001"], ["--fps", "1000"], ["--scale-factor", "1.01"], ["--scale-factor", "4"],
                        ["--min-face", "1"], ["--min-face", "16384"], ["--face-width", "0"], ["--face-width", "64"],
                        ["--face-width", "16384"], ["--max-pixels", "320x240"], ["--max-pixels", "32768x32768"],
                        ["--min-neighbors", "0"], ["--min-neighbors", "100"], ["--density", "16"], ["--motion-threshold", "255"],
                        ["--face-rate", "1000"], ["--dedupe", "86400"], ["--hook-jobs", "64"]]
        for option in accepted {
            let run = try measuredLookout(["run", "--input", input, "-q"] + option)
            #expect(run.status == 0, "\(option): \(run.stderr)")
        }
        let refused = [["--fps", "0.0009"], ["--fps", "1000.5"], ["--fps", "1e-308"], ["--fps", "nan"], ["--fps", "inf"],
                       ["--scale-factor", "1.009"], ["--scale-factor", "4.01"], ["--scale-factor", "nan"],
                       ["--min-face", "0"], ["--min-face", "16385"], ["--min-face", "99999999999"],
                       ["--face-width", "63"], ["--face-width", "16385"], ["--face-width", "3000000000"],
                       ["--max-pixels", "4095"], ["--max-pixels", "32769x32768"], ["--max-pixels", "99999999999x99999999999"],
                       ["--min-neighbors", "101"], ["--density", "17"], ["--motion-threshold", "256"], ["--face-rate", "nan"],
                       ["--dedupe", "86401"], ["--dedupe", "inf"], ["--hook-jobs", "65"], ["--rect-of-interest", "nan,0,1,1"],
                       ["--watchdog", "inf"], ["--size", "16384x16384"], ["--buffers", "33"]]
        for option in refused {
            let run = try measuredLookout(["run", "--input", input] + option)
            #expect(run.status == 64, "\(option): \(run.status) \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(option): \(run.stderr)")
            #expect(!run.stderr.contains("Fatal error"), "\(option)")
        }
    }

    @Test func pathsAreBytesAndMessagesStayOnOneLine() throws {
        let y4mBytes = try Fixtures.bytes("qr-mono.y4m")
        let latin1 = Array((directory + "caf").utf8) + [0xE9] + Array(".y4m".utf8)
        let fd = latin1.map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { buffer -> Int32 in
            var terminated = Array(buffer) + [0]
            return open(&terminated, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        try #require(fd >= 0)
        _ = y4mBytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        let run = try measuredLookout([Array("run".utf8), Array("--input".utf8), latin1, Array("--types".utf8), Array("qr".utf8)])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"kind\":\"qr\""))
        #expect(run.stderrLines.count == 1 && run.stderr.contains("caf\\xE9.y4m"), "\(run.stderr)")

        // A face model whose name is not UTF-8 loads too.
        let model = Array((directory + "mod").utf8) + [0xE8] + Array("le.xml".utf8)
        let cascade = try Fixtures.bytes("../../models/haarcascade_frontalface_default.xml")
        let modelFD = (model.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        try #require(modelFD >= 0)
        _ = cascade.withUnsafeBytes { write(modelFD, $0.baseAddress!, $0.count) }
        close(modelFD)
        let faces = try measuredLookout([Array("run".utf8), Array("--input".utf8), Array(Fixtures.path("sample.mjpeg").utf8),
                                         Array("--face-model".utf8), model, Array("--types".utf8), Array("face".utf8), Array("-q".utf8)])
        #expect(faces.status == 0 && faces.stdout.contains("\"kind\":\"face\""), "\(faces.stderr)")

        let newline = file("two\nlines.y4m", y4mBytes)
        let ok = try measuredLookout(["run", "--input", newline, "--types", "qr", "--stats", "-q"])
        #expect(ok.status == 0 && ok.stdout.contains("\"frames_analysed\":2"), "\(ok.stderr)")
        let missing = try measuredLookout([Array("run".utf8), Array("--input".utf8), Array((directory + "no\nsuch").utf8) + [0xFF]])
        expectRefusal(missing, status: 66, saying: "no\\nsuch\\xFF: no such file")
    }

    @Test func aHookMustBeAnExecutableRegularFile() throws {
        let folder = directory + "hookdir"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let plain = file("not-executable", Array("#!/bin/sh\n".utf8))
        for hook in [folder, plain, directory + "missing-hook"] {
            let run = try measuredLookout(["run", "--input", Fixtures.path("qr-mono.y4m"), "--on-code", hook])
            #expect(run.status == 64, "\(hook): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains("--on-code"), "\(run.stderr)")
        }
    }

    @Test func sigtermWithStandardOutputBlockedExitsWithinItsBound() throws {
        // Enough frames to fill the pipe; nobody reads it.
        let clip = try Fixtures.bytes("sample.mjpeg")
        let path = file("long.mjpeg", clip + clip + clip)
        let errors = directory + "sigterm.err"
        let (pid, stalled) = try spawnWithStalledOutput([lookoutBinary, "run", "--input", path, "--realtime"], errors: errors)
        defer { close(stalled) }
        // Wait until the pipe is full: lines stop flowing while frames are still being read.
        #expect(waitUntilBlockedOnOutput(pid), "lookout never blocked on its standard output")
        let start = Date()
        kill(pid, SIGTERM)
        let status = waitForStatus(pid, timeout: 20)
        let seconds = Date().timeIntervalSince(start)
        #expect(status == 143, "status \(status)")
        // Not before the deadline (a lower bound holds however loaded the machine); the upper one
        // is waitForStatus's, as a test on two busy cores cannot measure it.
        #expect(seconds >= stopOutputDeadline - 0.5, "exited after \(seconds) s")
        let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(message.contains("standard output took no lines for 2.5 s after SIGTERM"), "\(message)")
    }
}


/// Starts `words` with standard output a pipe nobody reads (returned, to close when done) and
/// standard error in the file `errors`, with no signal blocked.
func spawnWithStalledOutput(_ words: [String], errors: String) throws -> (pid: pid_t, pipe: Int32) {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    // One page (F_SETPIPE_SZ): a few lines fill it however slowly the machine analyses frames.
    _ = fcntl(fds[1], 1031, 4096)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    startWithDefaultSignals(&attributes)
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = childEnvironment([:]).map { strdup("\($0)=\($1)") } + [nil]
    defer { envp.forEach { free($0) } }
    var pid: pid_t = 0
    try #require(posix_spawn(&pid, words[0], &actions, &attributes, argv, envp) == 0)
    close(fds[1])
    return (pid, fds[0])
}

/// Waits for `pid` for at most `timeout` seconds (then kills it); returns the exit status.
func waitForStatus(_ pid: pid_t, timeout: Double) -> Int32 {
    if let status = exitStatus(of: pid, within: timeout) { return status }
    Issue.record("process \(pid) did not exit within \(timeout) s")
    kill(pid, SIGKILL)
    return exitStatus(of: pid, within: 60) ?? -1
}

/// The exit status of `pid` (128 + signal when killed) once it exits within `seconds`; nil if not.
func exitStatus(of pid: pid_t, within seconds: Double) -> Int32? {
    var status: Int32?
    _ = eventually(timeout: seconds) {
        status = reapedStatus(of: pid)
        return status != nil
    }
    return status
}

/// The exit status of `pid` if it has exited (reaping it), without waiting; nil while it runs.
func reapedStatus(of pid: pid_t) -> Int32? {
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// Waits until `pid` is blocked writing its standard output (a pipe nobody reads): one of its
/// threads sits in the same write(1, ...) call for 0.2 s of looks. False after `timeout`.
func waitUntilBlockedOnOutput(_ pid: pid_t, timeout: Double = 60) -> Bool {
    /// The write(1, ...) calls its threads are in, as /proc/PID/task/TID/syscall shows them
    /// ("1 0x1 BUFFER COUNT ..."; write is system call 1 on x86-64).
    func writesToStandardOutput() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return Set(tasks.compactMap { task in
            let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
            return call.hasPrefix("1 0x1 ") ? task + " " + call : nil
        })
    }
    // Each write call seen, with when it was first seen; kept only while it is seen again.
    var seenSince: [String: Date] = [:]
    return eventually(timeout: timeout) {
        let now = Date()
        seenSince = Dictionary(uniqueKeysWithValues: writesToStandardOutput().map { ($0, seenSince[$0] ?? now) })
        return seenSince.values.contains { now.timeIntervalSince($0) >= 0.2 }
    }
}

/// The CLI's bound on a stop's wait for standard output (StopSignals.outputDeadline).
let stopOutputDeadline = 2.5
