import Foundation
import Testing
@testable import Lookout

/// The built `lookout` binary, beside the test bundle in the build folder.
let lookoutBinary: String = {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = testBinary.deletingLastPathComponent()
    if folder.lastPathComponent.hasSuffix(".xctest") || folder.path.contains(".xctest/") {
        while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
    }
    return folder.appendingPathComponent("lookout").path
}()

struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var lines: [String] { String(decoding: stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// Runs `lookout` with `arguments`, feeding `input` on standard input.
func lookout(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
             timeout: Double = 120) throws -> ProcessResult {
    _ = brokenPipesIgnored
    try #require(FileManager.default.isExecutableFile(atPath: lookoutBinary), "build lookout first: \(lookoutBinary)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: lookoutBinary)
    process.arguments = arguments
    let stateHome = ScratchStateHome(environment)
    defer { withExtendedLifetime(stateHome) {} }
    process.environment = stateHome.environment
    let out = Pipe(), err = Pipe(), stdin = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    try process.run()
    if let input {
        DispatchQueue.global().async {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
    }
    let collected = DispatchGroup()
    nonisolated(unsafe) var stdoutData = Data(), stderrData = Data()
    DispatchQueue.global().async(group: collected) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: collected) { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning {
        process.terminate()
        Issue.record("lookout \(arguments) did not finish within \(timeout) s")
    }
    process.waitUntilExit()
    collected.wait()
    return ProcessResult(status: process.terminationStatus, stdout: stdoutData, stderr: String(decoding: stderrData, as: UTF8.self))
}

func jsonObjects(_ result: ProcessResult) throws -> [[String: Any]] {
    try result.lines.map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
}

@Suite("Command line, end to end", .serialized)
struct CommandLineTests {
    @Test func sampleClipGivesTheExpectedDetectionsOnEveryFrame() throws {
        let expected = try Fixtures.sampleExpectation()
        // Every frame analysed for faces, each face reported as found: what this test checks is
        // the detectors, not the video defaults (tested in AnalysisWorkTests).
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--face-rate", "0", "--face-confirm", "1",
                                  "--scale-factor", "1.1"])
        #expect(result.status == 0)
        let lines = try jsonObjects(result)
        for kind in ["qr", "ean13", "face"] {
            let frames = Set(lines.filter { $0["kind"] as? String == kind }.compactMap { $0["frame"] as? Int })
            #expect(frames == Set(0..<expected.frames), "\(kind) missing on frames \(Set(0..<expected.frames).subtracting(frames).sorted())")
        }
        #expect(Set(lines.filter { $0["kind"] as? String == "qr" }.compactMap { $0["value"] as? String }) == [expected.qr])
        #expect(Set(lines.filter { $0["kind"] as? String == "ean13" }.compactMap { $0["value"] as? String }) == [expected.ean13])
        let face = try #require(lines.first { $0["kind"] as? String == "face" && $0["frame"] as? Int == 0 })
        let box = try #require(face["pixel_bounds"] as? [String: Double])
        let found = Rect(x: try #require(box["x"]), y: try #require(box["y"]), width: try #require(box["width"]),
                         height: try #require(box["height"]))
        #expect(found.intersectionOverUnion(expected.faceBox) >= 0.5)
        // One face walking through the clip keeps one ID.
        #expect(Set(lines.filter { $0["kind"] as? String == "face" }.compactMap { $0["face_id"] as? Int }).count == 1)
        #expect(result.stderr.contains("60 frames read, 60 analysed"))
        #expect(result.stderr.split(separator: "\n").count == 1, "diagnostics: \(result.stderr)")
    }

    @Test func everyLineMatchesTheJSONSchema() throws {
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--stats"])
        let scan = try lookout(["scan", Fixtures.path("qr-hostile.png"), Fixtures.path("qr-2953.png"), Fixtures.path("qr-kanji.png")])
        // Camera lines cannot be produced without a camera here; the VM tests validate real ones.
        let camera = Data(InterruptionLineEncoder.lost(source: "/dev/video0", reason: "no frame for 3 s")
            + InterruptionLineEncoder.found(source: "/dev/video0",
                                            format: VideoFormatDescription(width: 640, height: 480, pixelFormat: .yuyv, frameRate: 25)))
        let lines = String(decoding: result.stdout + scan.stdout + camera, as: UTF8.self)
            .split(separator: "\n").map(String.init)
        // The run: a QR and an EAN-13 line per frame, 19 confirmed faces, the stats line; the scan:
        // a code per image; the two camera lines.
        #expect(lines.count == 60 + 60 + 19 + 1 + 3 + 2, "\(lines.count) lines")
        try validateAgainstSchema(lines)
        #expect(try jsonObjects(result).last?["kind"] as? String == "stats")
    }

    /// The schema check is not blind to what it cannot see by type alone: a time that is no
    /// RFC 3339 date-time, or no date at all, is refused (Debian's jsonschema needs help for that).
    @Test func theSchemaCheckRefusesATimeThatIsNoDate() throws {
        let good = String(decoding: InterruptionLineEncoder.lost(source: "/dev/video0", reason: "no frame for 3 s"), as: UTF8.self)
            .trimmingCharacters(in: .newlines)
        #expect(try schemaCheck([good]).status == 0)
        let time = try #require(good.range(of: #""time":"[^"]*""#, options: .regularExpression), "no time in \(good)")
        for bad in ["2026-02-30T10:00:00.000Z", "2026-11-25 10:00:00.000Z", "2026-11-25T24:00:00.000Z", "2026-11-25T10:00:00.000", "soon"] {
            let line = good.replacingCharacters(in: time, with: #""time":"\#(bad)""#)
            let check = try schemaCheck([line])
            #expect(check.status != 0, "\(bad) passed the schema check")
        }
    }

    @Test func standardInputTruncatedMidFrameEndsCleanlyAfterTheLastWholeFrame() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("sample.mjpeg"))).prefix(100_000)
        let result = try lookout(["run", "--input", "-"], input: Data(bytes))
        #expect(result.status == 0)
        let frames = Set(try jsonObjects(result).compactMap { $0["frame"] as? Int })
        #expect(frames == [0, 1])
        #expect(result.stderr.contains("dropped 1 corrupt"))
    }

    @Test func missingInputExits66NamingThePath() throws {
        let result = try lookout(["run", "--input", "nope.mjpeg"])
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "lookout: nope.mjpeg: no such file or device\n")
    }

    @Test func nonVideoOnStandardInputIsAClearError() throws {
        let result = try lookout(["run", "--input", "-"], input: try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("ean13.png"))))
        #expect(result.status == 1)
        #expect(result.stderr.contains("standard input is not an MJPEG or Y4M stream"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func usageErrorsExit64() throws {
        #expect(try lookout(["run", "--input", "x", "--types", "qr,nonsense"]).status == 64)
        #expect(try lookout(["run", "--input", "x", "--rect-of-interest", "0.5,0.5,0.9,0.9"]).status == 64)
        #expect(try lookout(["run", "--input", "x", "--size", "big"]).status == 64)
        #expect(try lookout(["run", "--input", "x", "--control", "brightness"]).status == 64)
    }

    @Test(.enabled(if: CaptureDevice.videoNodes().isEmpty, "this machine has cameras"))
    func withoutACameraRunSaysSoAndPointsAtInput() throws {
        let result = try lookout(["run"])
        #expect(result.status == 66)
        #expect(result.stderr == "lookout: no camera found (no /dev/video* capture device); pass --input PATH to read a file or a device\n")
        let devices = try lookout(["devices", "--json"])
        #expect(devices.status == 0 && String(decoding: devices.stdout, as: UTF8.self) == "[]\n")
    }

    @Test func aFileThatIsNotAV4L2DeviceIsRefusedInOneSentence() throws {
        let result = try lookout(["devices", "--device", "/dev/null"])
        #expect(result.status == 1)
        #expect(result.stderr == "lookout: /dev/null is a character device but not a video device (VIDIOC_QUERYCAP: Inappropriate ioctl for device); Lookout reads V4L2 cameras (/dev/videoN: `lookout devices` lists them), MJPEG and Y4M files and pipes, video files and URLs through ffmpeg, and - for standard input\n")
    }

    @Test func closedOutputPipeStopsAtOnceQuietly() throws {
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: lookoutBinary)
        process.arguments = ["run", "--input", Fixtures.path("sample.mjpeg")]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read one line, then go away like `head -1`.
        var first = Data()
        while !first.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        #expect(first.contains(0x0A), "no line before the end")
        try out.fileHandleForReading.close()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(stderr.isEmpty, "stderr: \(stderr)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalStopsCleanlyAndFlushesEveryLine(signal: Int32) throws {
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("sample.mjpeg"), "--realtime", "--fps", "15",
                                                            "--stats"])
        // Signalled once the first detection is out: the 4 s clip is then under way.
        #expect(process.output.wait(timeout: 60) { !$0.isEmpty }, "no line: \(process.errors.lines)")
        process.signal(signal)
        #expect(process.waitForExit() == 0)
        #expect(!process.output.endedMidLine, "the last line was cut")
        var lines = try jsonObjects(ProcessResult(status: 0, stdout: Data(process.output.lines.map { $0 + "\n" }.joined().utf8),
                                                  stderr: process.errors.lines.joined(separator: "\n")))
        let last = lines.popLast()
        let stats = try #require(last, "no stats line")
        #expect(stats["kind"] as? String == "stats")
        #expect(!lines.isEmpty)
        let frames = lines.compactMap { $0["frame"] as? Int }
        #expect((frames.max() ?? 99) < 59, "the clip should not have finished before the signal")
        // Every detection the summary counts was written: each kind's lines, and a QR line for
        // every frame analysed (the sample holds a QR code on every frame).
        let detections = try #require(stats["detections"] as? [String: Int])
        for kind in ["qr", "ean13", "face"] {
            #expect(lines.filter { $0["kind"] as? String == kind }.count == detections[kind] ?? 0, "\(kind): \(stats)")
        }
        let qrFrames = Set(lines.filter { $0["kind"] as? String == "qr" }.compactMap { $0["frame"] as? Int })
        #expect(qrFrames.count == stats["frames_analysed"] as? Int, "\(stats)")
    }

    /// zbarcam's `TYPE:value`, then the AIM identifier and, for GS1 data (an EAN-13 is a GTIN), its
    /// human-readable form, each after a tab.
    @Test func textFormatMatchesZbarcam() throws {
        let result = try lookout(["run", "--input", Fixtures.path("qr-420.y4m"), "--format", "text"])
        #expect(result.lines == ["QR-Code:été\t]Q1", "QR-Code:été\t]Q1"])
        let sample = try lookout(["scan", Fixtures.path("ean13.png"), "--format", "text", "--types", "ean13"])
        #expect(sample.lines == ["EAN-13:4006381333931\t]E0\t(01)04006381333931"])
    }

    @Test func scanReportsMissingFilesAndScansTheRest() throws {
        let result = try lookout(["scan", "missing.png", Fixtures.path("qr-utf8-ete.png"), Fixtures.path("blank.pgm")])
        #expect(result.status == 66)
        #expect(result.stderr.contains("missing.png: no such file or device"))
        let lines = try jsonObjects(result)
        #expect(lines.count == 1)
        #expect(lines.first?["value"] as? String == "été")
    }

    @Test func hostilePayloadYieldsExactlyOneValidLine() throws {
        let result = try lookout(["scan", Fixtures.path("qr-hostile.png")])
        let lines = try jsonObjects(result)
        #expect(lines.count == 1)
        let raw = try #require(lines.first?["raw_base64"] as? String)
        #expect(Data(base64Encoded: raw) == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("qr-hostile.bin")))))
    }
}
