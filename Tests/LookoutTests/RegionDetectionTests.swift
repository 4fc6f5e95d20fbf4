import Foundation
import Testing
@testable import Lookout

/// Masks and zones applied by a metadata output to what the real detectors find in the fixtures.
@Suite("Masks and zones in detection")
struct RegionDetectionTests {
    // Where the sample clip's objects are (centres, fractions of the 1280x720 frame, over its 60
    // frames): the QR code at x 0.51, y 0.19-0.36; the EAN-13 at x 0.71-0.78, y 0.75; the face at
    // x 0.17-0.23, y 0.34-0.35.
    static let overEAN = "0.6,0.55 1,0.55 1,0.95 0.6,0.95"
    static let overQR = "0.4,0 0.65,0 0.65,0.5 0.4,0.5"
    static let overFace = "0.05,0.2 0.35,0.2 0.35,0.5 0.05,0.5"

    static func regions(masks: [String] = [], zones: [(String, String)] = []) throws -> DetectionRegions {
        try DetectionRegions(masks: masks.map { try RegionPolygon(parsing: $0) },
                             zones: zones.map { try Zone(name: $0.0, polygon: RegionPolygon(parsing: $0.1)) })
    }

    /// Every object a metadata output delivers for a whole clip, and its statistics.
    static func analyse(_ path: String, types: [MetadataObjectType], regions: DetectionRegions,
                        motionThreshold: Int = 0) throws -> (objects: [MetadataObject], statistics: MetadataOutput.Statistics) {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: path))
        let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel))
        try session.addOutput(output)
        try output.setMetadataObjectTypes(types)
        output.regions = regions
        output.unchangedFrameThreshold = motionThreshold
        #expect(output.regions == regions)
        let recorder = ObjectRecorder()
        output.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.regions"))
        run(session)
        return (recorder.objects.withLock { $0 }, output.statistics)
    }

    @Test func aMaskRemovesWhatItCoversAndZonesNameTheRest() throws {
        let clip = Fixtures.path("sample.mjpeg")
        let reference = try Self.analyse(clip, types: [.qr, .ean13, .face], regions: .none)
        let referenceFaces = reference.objects.filter { $0.type == .face }.count
        #expect(reference.objects.filter { $0.type == .ean13 }.count == 60)
        #expect(reference.objects.filter { $0.type == .qr }.count == 60)
        #expect(referenceFaces > 0)
        #expect(reference.objects.allSatisfy { $0.zone == nil })
        #expect(reference.statistics.objectsMasked == 0)

        // The whole frame is a zone too, listed last: an object in an earlier zone keeps that one.
        let regions = try Self.regions(masks: [Self.overEAN],
                                       zones: [("door", Self.overQR), ("desk", Self.overFace), ("everywhere", "0,0 1,0 1,1 0,1")])
        let masked = try Self.analyse(clip, types: [.qr, .ean13, .face], regions: regions)
        #expect(masked.objects.filter { $0.type == .ean13 }.isEmpty)
        #expect(masked.statistics.objectsMasked == 60)
        #expect(masked.statistics.objectsByType[.ean13] == nil)
        let codes = masked.objects.filter { $0.type == .qr }
        #expect(codes.count == 60)
        #expect(codes.allSatisfy { $0.zone == "door" }, "\(Set(codes.map(\.zone)))")
        let faces = masked.objects.filter { $0.type == .face }
        #expect(faces.count == referenceFaces)
        #expect(faces.allSatisfy { $0.zone == "desk" }, "\(Set(faces.map(\.zone)))")
        #expect(masked.statistics.objectsByType[.face] == referenceFaces)

        // A mask over the face instead: no face is reported, and each one found is counted.
        let noFace = try Self.analyse(clip, types: [.face], regions: try Self.regions(masks: [Self.overFace]))
        #expect(noFace.objects.isEmpty)
        #expect(noFace.statistics.objectsMasked == referenceFaces)

        // Lines carry the zone, and match the schema.
        var encoder = DetectionLineEncoder(source: "sample.mjpeg", camera: "cam")
        let lines = masked.objects.prefix(40).map { String(decoding: encoder.encode($0).dropLast(), as: UTF8.self) }
        try #require(!lines.isEmpty)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(["door", "desk"].contains(object["zone"] as? String), "\(line)")
        }
        try validateAgainstSchema(lines)
    }

    @Test func aStillImageScanAppliesTheMasksToo() throws {
        let (session, output) = try Fixtures.metadataOutput(types: [.qr, .ean13])
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        output.regions = try Self.regions(masks: [Self.overQR], zones: [("shelf", Self.overEAN)])
        let objects = withExtendedLifetime(session) { output.metadataObjects(in: image) }
        #expect(objects.map(\.type) == [.ean13])
        #expect(objects.map(\.zone) == ["shelf"])
        #expect(output.statistics.objectsMasked == 1)
        // Regions changed between scans apply to the next.
        output.regions = .none
        let all = withExtendedLifetime(session) { output.metadataObjects(in: image) }
        #expect(Set(all.map(\.type)) == [.qr, .ean13])
        #expect(all.allSatisfy { $0.zone == nil })
    }

    /// A 160x120 grey Y4M clip of 20 frames whose top-left corner flickers (a 32x32 square black
    /// and white in turn, like a screen); from frame `stepAt` on, a block in the bottom right is dark.
    static func flickeringClip(stepAt: Int) -> [UInt8] {
        let width = 160, height = 120
        var bytes = Array("YUV4MPEG2 W\(width) H\(height) F10:1 Ip A1:1 Cmono\n".utf8)
        for frame in 0..<20 {
            var plane = [UInt8](repeating: 128, count: width * height)
            for y in 8..<40 { for x in 8..<40 { plane[y * width + x] = frame % 2 == 0 ? 0 : 255 } }
            if frame >= stepAt { for y in 96..<112 { for x in 128..<144 { plane[y * width + x] = 20 } } }
            bytes += Array("FRAME\n".utf8) + plane
        }
        return bytes
    }

    @Test func motionInsideAMaskDoesNotWakeTheDetectors() throws {
        let path = temporaryClip(Self.flickeringClip(stepAt: 12), suffix: ".y4m")
        defer { unlink(path) }
        // Without a mask the flicker is a change on every frame.
        let open = try Self.analyse(path, types: [.qr], regions: .none, motionThreshold: 4)
        #expect(open.statistics.framesAnalysed == 20)
        #expect(open.statistics.framesUnchanged == 0)
        // The top-left quarter masked: only the first frame and the step outside it are analysed.
        let masked = try Self.analyse(path, types: [.qr], regions: try Self.regions(masks: ["0,0 0.5,0 0.5,0.5 0,0.5"]),
                                      motionThreshold: 4)
        #expect(masked.statistics.framesAnalysed == 20)
        #expect(masked.statistics.framesUnchanged == 18)
        // A zone is no mask: it changes nothing.
        let zoned = try Self.analyse(path, types: [.qr], regions: try Self.regions(zones: [("screen", "0,0 0.5,0 0.5,0.5 0,0.5")]),
                                     motionThreshold: 4)
        #expect(zoned.statistics.framesUnchanged == 0)
    }
}
