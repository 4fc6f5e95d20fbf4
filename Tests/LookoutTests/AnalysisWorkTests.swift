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
        #expect(try Self.frames(result, kind: "face") == Array(stride(from: 0, to: 60, by: 3)))
    }

    @Test func unchangedFramesSkipTheDetectorsAndKeepEveryDetection() throws {
        // The code clip is static between its changes (the QR code appears and disappears).
        let plain = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--stats", "-q"])
        let gated = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--stats", "-q",
                                 "--motion-threshold", "4"])
        #expect(try Self.frames(gated, kind: "qr") == Self.frames(plain, kind: "qr"))
        #expect(try Self.frames(plain, kind: "qr").count == 35)
        let stats = try Self.stats(gated)
        let unchanged = try #require(stats["frames_unchanged"] as? Int)
        #expect(unchanged >= 70, "only \(unchanged) of 80 frames found unchanged")
        let timings = try #require(stats["timings"] as? [String: [String: Double]])
        #expect(Int(timings["codes"]?["count"] ?? -1) == 80 - unchanged)
        // The first frame with the code after a blank stretch is analysed, not skipped.
        #expect(try Self.frames(gated, kind: "qr").contains(15))
        #expect(try #require(stats["frames_not_decoded"] as? Int) >= 60)

        // A still picture: analysed once, reported on every frame.
        let still = Data((0..<30).flatMap { _ in (try? Fixtures.bytes("frame0.jpg")) ?? [] })
        let repeated = try lookout(["run", "--input", "-", "--stats", "-q", "--motion-threshold", "4"], input: still)
        let repeatedStats = try Self.stats(repeated)
        #expect(repeatedStats["frames_unchanged"] as? Int == 29)
        // Nor decoded: a 1/8-scale look found them unchanged.
        #expect(repeatedStats["frames_not_decoded"] as? Int == 29)
        #expect(try Self.frames(repeated, kind: "face") == Array(0..<30))
        #expect(Set(try jsonObjects(repeated).filter { $0["kind"] as? String == "face" }.compactMap { $0["face_id"] as? Int }).count == 1)
    }

    @Test func theStatsLineTimesEveryStage() throws {
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--stats", "-q"])
        let timings = try #require(try Self.stats(result)["timings"] as? [String: [String: Double]])
        #expect(Set(timings.keys) == ["decode", "codes", "faces", "code_latency"])
        for (stage, timing) in timings {
            #expect(timing["count"] == 60, "\(stage)")
            let p50 = timing["p50_ms"] ?? -1, p99 = timing["p99_ms"] ?? -1, maximum = timing["max_ms"] ?? -1
            #expect(p50 > 0 && p50 <= p99 && p99 <= maximum, "\(stage): \(timing)")
        }
    }
}
