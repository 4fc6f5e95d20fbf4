import Foundation
import Testing
@testable import Lookout

/// The means that cut detector work (face rate, motion gate) keep every detection, and the stats
/// line reports the work and per-stage times.
@Suite("Detector work", .serialized)
struct AnalysisWorkTests {
    static func stats(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try jsonObjects(result).last { $0["kind"] as? String == "stats" })
    }

    static func frames(_ result: ProcessResult, kind: String) throws -> [Int] {
        try jsonObjects(result).filter { $0["kind"] as? String == kind }.compactMap { $0["frame"] as? Int }.sorted()
    }

    @Test func aFaceRateAnalysesFacesAtThatRateAndCodesOnEveryFrame() throws {
        // The sample is timed at 30 fps (MJPEG default): 10 faces a second is every third frame.
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--face-rate", "10", "--stats", "-q"])
        #expect(result.status == 0)
        let stats = try Self.stats(result)
        #expect(stats["face_analyses"] as? Int == 20)
        #expect(try Self.frames(result, kind: "qr") == Array(0..<60))
        #expect(try Self.frames(result, kind: "ean13") == Array(0..<60))
        // Faces are reported once confirmed by a second analysis: from frame 3 on.
        #expect(try Self.frames(result, kind: "face") == Array(stride(from: 3, to: 60, by: 3)))
    }

    @Test func framesNotDueForFacesAreDecodedAtHalfSizeForHalfResolutionCodes() throws {
        func run(_ resolution: String, fullSearch: String = "0") throws -> (stats: [String: Any], faces: [String], codes: Int) {
            let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--face-rate", "10",
                                      "--code-resolution", resolution, "--face-full-search", fullSearch, "--stats", "-q"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try jsonObjects(result)
            // Face lines without their wall-clock time, which differs from run to run.
            let faces = result.lines.filter { $0.contains("\"kind\":\"face\"") }
                .map { $0.replacingOccurrences(of: #""time":"[^"]*","#, with: "", options: .regularExpression) }
            let codes = lines.filter { ["qr", "ean13"].contains($0["kind"] as? String) && ($0["image"] as? [String: Int]) == ["width": 1280, "height": 720] }
            return (try Self.stats(result), faces, codes.count)
        }
        let half = try run("half"), full = try run("full")
        // 60 frames, 20 of them due for (whole) face searches: those are decoded whole, the rest
        // at half size.
        #expect(half.stats["frames_decoded_half"] as? Int == 40)
        #expect(full.stats["frames_decoded_half"] as? Int == 0)
        // Faces come from the same whole frames either way; codes on every frame, in frame pixels.
        #expect(half.faces.count == 19) // the first analysis's face awaits its confirmation
        #expect(half.faces == full.faces)
        #expect(half.codes == 120 && full.codes == 120)
        // Window searches between whole ones take half-size planes too: only the whole searches'
        // frames (0 and 30: one a second) are decoded whole.
        let windows = try run("half", fullSearch: "1")
        #expect(windows.stats["frames_decoded_half"] as? Int == 58)
        #expect(windows.faces.count == 19)
        #expect(windows.codes == 120)
    }

    @Test func unchangedFramesSkipTheDetectorsAndKeepEveryDetection() throws {
        // The code clip is static between its changes (the QR code appears and disappears). Whole
        // frames on every frame (no windows, which read a code that appears within 100 ms).
        let plain = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--stats", "-q",
                                 "--code-scan-rate", "0"])
        let gated = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--stats", "-q",
                                 "--motion-threshold", "4", "--code-scan-rate", "0"])
        #expect(try Self.frames(gated, kind: "qr") == Self.frames(plain, kind: "qr"))
        #expect(try Self.frames(plain, kind: "qr").count == 35)
        let stats = try Self.stats(gated)
        // Six frames change (the first, and each time the code comes or goes): the other 74 are
        // found unchanged, none of them even decoded.
        let unchanged = try #require(stats["frames_unchanged"] as? Int)
        #expect(unchanged == 74, "\(unchanged) of 80 frames found unchanged")
        let timings = try #require(stats["timings"] as? [String: [String: Double]])
        #expect(Int(timings["codes"]?["count"] ?? -1) == 80 - unchanged)
        // The first frame with the code after a blank stretch is analysed, not skipped.
        #expect(try Self.frames(gated, kind: "qr").contains(15))
        #expect(stats["frames_not_decoded"] as? Int == 74)

        // A still picture: analysed once, reported on every frame.
        let still = Data((0..<30).flatMap { _ in (try? Fixtures.bytes("frame0.jpg")) ?? [] })
        let repeated = try lookout(["run", "--input", "-", "--stats", "-q", "--motion-threshold", "4", "--face-rate", "0"], input: still)
        let repeatedStats = try Self.stats(repeated)
        #expect(repeatedStats["frames_unchanged"] as? Int == 29)
        // Nor decoded: a 1/8-scale look found them unchanged.
        #expect(repeatedStats["frames_not_decoded"] as? Int == 29)
        // Confirmed on the second frame (a restamp counts: the detector would find it again).
        #expect(try Self.frames(repeated, kind: "face") == Array(1..<30))
        #expect(Set(try jsonObjects(repeated).filter { $0["kind"] as? String == "face" }.compactMap { $0["face_id"] as? Int }).count == 1)
    }

    /// Frame 0 of the sample shown `still` times (still for longer than the 30 looks after which
    /// two frames in three are skipped), then frame 10 (the codes moved) five times. Frames 31, 32,
    /// 34, 35, ... are not looked at: a change on frame 39 is seen there, one on frame 40 or 41 on frame 42.
    @Test(arguments: [(39, 39), (40, 42), (41, 42)])
    func aLongStillSceneIsLookedAtEveryThirdFrameAndResumesWithinTwoFrames(still: Int, seenOn: Int) throws {
        let frames = naiveFrames(try Fixtures.bytes("sample.mjpeg"))
        try #require(frames.count == 60)
        let stream = Data((Array(repeating: frames[0], count: still) + Array(repeating: frames[10], count: 5)).flatMap { $0 })
        let result = try lookout(["run", "--input", "-", "--types", "qr", "--stats", "-q", "--motion-threshold", "4"],
                                 input: stream)
        #expect(result.status == 0)
        let reference = try lookout(["run", "--input", "-", "--types", "qr"], input: Data(frames[10]))
        let moved = try #require(try jsonObjects(reference).first?["bounds"] as? [String: Double])
        let codes = try jsonObjects(result).filter { $0["kind"] as? String == "qr" }
        #expect(codes.count == still + 5)
        let firstMoved = try #require(codes.firstIndex { $0["bounds"] as? [String: Double] == moved })
        #expect(firstMoved == seenOn)
        for code in codes[firstMoved...] { #expect(code["bounds"] as? [String: Double] == moved) }
        let stats = try Self.stats(result)
        // Every frame but the first and the one where the change was seen was spared the decode
        // and the detectors (the skipped ones were not even looked at).
        #expect(stats["frames_unchanged"] as? Int == still + 5 - 2)
        #expect(stats["frames_not_decoded"] as? Int == still + 5 - 2)
        let timings = try #require(stats["timings"] as? [String: [String: Double]])
        #expect(timings["codes"]?["count"] == 2)
    }

    @Test func theStatsLineTimesEveryStage() throws {
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--stats", "-q", "--face-rate", "0"])
        let timings = try #require(try Self.stats(result)["timings"] as? [String: [String: Double]])
        #expect(Set(timings.keys) == ["decode", "codes", "faces", "code_latency"])
        for (stage, timing) in timings {
            #expect(timing["count"] == 60, "\(stage)")
            let p50 = timing["p50_ms"] ?? -1, p99 = timing["p99_ms"] ?? -1, maximum = timing["max_ms"] ?? -1
            #expect(p50 > 0 && p50 <= p99 && p99 <= maximum, "\(stage): \(timing)")
        }
    }
}
