import Foundation
import Testing
@testable import Lookout

/// PDF417, Aztec and DataMatrix in video (`lookout run` on kinds.mjpeg, 15 frames of 1280x720
/// holding one of each off the frame's middle): read on the frames, one event per code, and no
/// zxing-cpp work at all unless asked for.
@Suite("zxing kinds in video")
struct ZXingKindsVideoTests {
    static let types = "qr,ean13,pdf417,aztec,datamatrix"

    @Test func everyKindIsReadAndReportedOnceAsAnEvent() throws {
        let frames = try lookout(["run", "--input", Fixtures.path("kinds.mjpeg"), "--types", Self.types, "-q"])
        #expect(frames.status == 0, "\(frames.stderr)")
        let lines = try jsonObjects(frames)
        try validateAgainstSchema(frames.lines)
        // The window rotation reaches every symbol within the first frames; from then on the
        // window around each code read keeps it on every frame.
        let lastFrame = lines.filter { $0["frame"] as? Int == 14 }
        #expect(Set(lastFrame.compactMap { $0["kind"] as? String }) == ["pdf417", "aztec", "datamatrix"])
        for kind in ["pdf417", "aztec", "datamatrix"] {
            let reads = lines.filter { $0["kind"] as? String == kind }.compactMap { $0["frame"] as? Int }
            let first = try #require(reads.min())
            #expect(reads == Array(first...14), "\(kind) read on frames \(reads)")
        }
        let events = try lookout(["run", "--input", Fixtures.path("kinds.mjpeg"), "--types", Self.types, "--events", "changes", "-q"])
        let codes = try jsonObjects(events).filter { $0["kind"] as? String == "code" }
        #expect(codes.compactMap { $0["type"] as? String }.sorted() == ["aztec", "datamatrix", "pdf417"])
        #expect(codes.first { $0["type"] as? String == "datamatrix" }?["value"] as? String == ZXingKindsScanTests.gs1)
        try validateAgainstSchema(events.lines)
    }

    /// Asked for, zxing-cpp reads every analysed frame once; not asked for, never.
    @Test func zxingRunsOnlyWhenAKindOfItsIsAskedFor() throws {
        let asked = try lookout(["run", "--input", Fixtures.path("kinds.mjpeg"), "--types", Self.types, "--stats", "-q"])
        let askedStats = try #require(try jsonObjects(asked).last)
        #expect(askedStats["zxing_looks"] as? Int == 15 && askedStats["frames_analysed"] as? Int == 15)
        #expect(askedStats["zxing_failures"] as? Int == 0)
        for types in [nil, "qr,ean13", "qr,ean13,face"] {
            let result = try lookout(["run", "--input", Fixtures.path("kinds.mjpeg"), "--stats", "-q"] + (types.map { ["--types", $0] } ?? []))
            let stats = try #require(try jsonObjects(result).last)
            #expect(stats["frames_analysed"] as? Int == 15)
            #expect(stats["zxing_looks"] as? Int == 0, "types \(types ?? "default")")
            #expect((stats["detections"] as? [String: Int])?.keys.contains { ["pdf417", "aztec", "datamatrix"].contains($0) } == false)
        }
    }
}
