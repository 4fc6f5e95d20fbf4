import Foundation
import Testing
@testable import Lookout

@Suite("JSON lines")
struct JSONLineTests {
    /// Parses one line back with Foundation's strict parser.
    func parse(_ line: [UInt8]) throws -> [String: Any] {
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A), "a line must not contain a raw newline")
        let object = try JSONSerialization.jsonObject(with: Data(line.dropLast()))
        return try #require(object as? [String: Any])
    }

    @Test func everyControlCharacterAndSeparatorIsEscaped() throws {
        var all = ""
        for scalar in 0..<0xA0 { all.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        all += "\u{2028}\u{2029}é✓😀"
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("value"); writer.string(all)
        writer.endObject()
        let parsed = try parse(writer.bytes + [0x0A])
        #expect(parsed["value"] as? String == all)
        #expect(!writer.bytes.contains(0x00))
        // Nothing a Unicode-aware line splitter ends a line at: C1 controls (U+0085 among them),
        // U+2028, U+2029.
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 })
        #expect(text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count == 1)
    }

    @Test func base64MatchesFoundation() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) % 256) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test func hostileQRPayloadsGiveOneValidLineEach() throws {
        let (session, output) = try Fixtures.metadataOutput(types: [.qr])
        var encoder = DetectionLineEncoder(source: "a \"quoted\"\nsource")
        for name in ["qr-hostile.png", "qr-2953.png", "qr-latin1-ete.png", "qr-kanji.png", "qr-utf8-ete.png"] {
            let image = try StillImage.load(path: Fixtures.path(name))
            let objects = withExtendedLifetime(session) { output.metadataObjects(in: image) }
            #expect(objects.count == 1, "\(name)")
            for object in objects {
                let code = try #require(object as? MachineReadableCodeObject)
                let line = encoder.encode(object)
                let parsed = try parse(line)
                #expect(parsed["version"] as? Int == 1)
                #expect(parsed["kind"] as? String == "qr")
                #expect(parsed["value"] as? String == code.stringValue)
                #expect(parsed["source"] as? String == "a \"quoted\"\nsource")
                if code.payloadIsUTF8 {
                    #expect(parsed["raw_base64"] == nil)
                    #expect(Array((try #require(parsed["value"] as? String)).utf8) == code.payload)
                } else {
                    let raw = try #require(parsed["raw_base64"] as? String)
                    #expect(Data(base64Encoded: raw).map(Array.init) == code.payload)
                }
            }
        }
        // The raw bytes of the hostile payload survive exactly.
        let hostileImage = try StillImage.load(path: Fixtures.path("qr-hostile.png"))
        let hostile = withExtendedLifetime(session) { output.metadataObjects(in: hostileImage) }
        let parsed = try parse(encoder.encode(try #require(hostile.first)))
        #expect(Data(base64Encoded: try #require(parsed["raw_base64"] as? String)).map(Array.init) == (try Fixtures.bytes("qr-hostile.bin")))
    }

    @Test func faceLineCarriesIDAndBothBoxes() throws {
        let (session, output) = try Fixtures.metadataOutput(types: [.face])
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let objects = withExtendedLifetime(session) { output.metadataObjects(in: image) }
        var encoder = DetectionLineEncoder(source: "frame0.jpg")
        let parsed = try parse(encoder.encode(try #require(objects.first)))
        #expect(parsed["kind"] as? String == "face")
        #expect((parsed["face_id"] as? Int ?? 0) > 0)
        let bounds = try #require(parsed["bounds"] as? [String: Double])
        let pixels = try #require(parsed["pixel_bounds"] as? [String: Double])
        #expect(abs(try #require(bounds["x"]) * 1280 - (try #require(pixels["x"]))) < 0.01)
        #expect(parsed["corners"] == nil)
        let time = try #require(parsed["time"] as? String)
        #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
    }

    @Test func statsLineParses() throws {
        var drops = DropCounts()
        drops.add(.corrupt, count: 2)
        var summary = StatisticsSnapshot(source: "-")
        summary.framesRead = 10
        summary.framesAnalysed = 8
        summary.drops = drops
        summary.detections = [.qr: 3]
        summary.elapsedSeconds = 1.5
        let parsed = try parse(summary.jsonLine())
        #expect(parsed["kind"] as? String == "stats")
        #expect((parsed["dropped"] as? [String: Int])?["corrupt"] == 2)
        #expect((parsed["detections"] as? [String: Int])?["qr"] == 3)
    }
}

@Suite("Face IDs")
struct FaceTrackerTests {
    static func at(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    @Test func facesKeepTheirIDWhileInViewAndGetANewOneOnReturn() throws {
        let tracker = FaceTracker()
        let a = Rect(x: 100, y: 100, width: 80, height: 80), b = Rect(x: 400, y: 100, width: 80, height: 80)
        let first = tracker.assignIDs(to: [a], at: Self.at(0))
        let second = tracker.assignIDs(to: [Rect(x: 105, y: 102, width: 80, height: 80), b], at: Self.at(0.1))
        try #require(first.count == 1 && second.count == 2, "one ID per face: \(first), \(second)")
        #expect(second[0] == first[0])
        #expect(second[1] != first[0])
        _ = tracker.assignIDs(to: [], at: Self.at(0.2))
        let back = tracker.assignIDs(to: [a], at: Self.at(0.3))
        try #require(back.count == 1, "one ID per face: \(back)")
        #expect(back[0] != first[0] && back[0] != second[1])
    }

    @Test func aFaceMissedWithinTheRetentionKeepsItsID() {
        let tracker = FaceTracker(retention: MediaTime(seconds: 1))
        let a = Rect(x: 100, y: 100, width: 80, height: 80)
        let first = tracker.assignIDs(to: [a], at: Self.at(0))
        _ = tracker.assignIDs(to: [], at: Self.at(0.1))
        _ = tracker.assignIDs(to: [], at: Self.at(0.5))
        #expect(tracker.assignIDs(to: [a], at: Self.at(0.9)) == first)
        for t in [1.0, 1.4, 1.8] { _ = tracker.assignIDs(to: [], at: Self.at(t)) }
        // Gone for longer than the retention, missed by three analyses: a new face.
        let later = tracker.assignIDs(to: [a], at: Self.at(2.0))
        #expect(later != first)
        // A restarted clock ends every track.
        #expect(tracker.assignIDs(to: [a], at: Self.at(0)) != later)
    }
}
