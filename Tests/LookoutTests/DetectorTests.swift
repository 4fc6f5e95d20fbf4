import CPlanes
import Foundation
import Testing
@testable import Lookout

@Suite("Detectors on fixtures")
struct DetectorTests {
    func detect(_ name: String, types: [MetadataObjectType] = MetadataObjectType.defaultTypes,
                rectOfInterest: Rect = .unit) throws -> [MetadataObject] {
        let (session, output) = try Fixtures.metadataOutput(types: types)
        output.rectOfInterest = rectOfInterest
        let image = try StillImage.load(path: Fixtures.path(name))
        return withExtendedLifetime(session) { output.metadataObjects(in: image) }
    }

    func onlyCode(_ name: String) throws -> MachineReadableCodeObject {
        let codes = try detect(name, types: [.qr, .ean13]).compactMap { $0 as? MachineReadableCodeObject }
        try #require(codes.count == 1, "expected one code in \(name), found \(codes.count)")
        return codes[0]
    }

    @Test func theScannerKeepsItsSettingsWhenRenewed() throws {
        // ZBar's scanner is made afresh for every scan: scan after scan reads the same codes,
        // with the same settings.
        let image = try StillImage.load(path: Fixtures.path("qr-hostile.png"))
        let ean = try StillImage.load(path: Fixtures.path("ean13.png"))
        let scanner = BarcodeScanner(types: [.qr], density: 1)
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let expected = try Fixtures.bytes("qr-hostile.bin")
        for scan in 0..<20 {
            let codes = scanner.scan(image, region: whole)
            guard codes.map(\.payload) == [expected] else {
                Issue.record("scan \(scan) read \(codes.map(\.payload))")
                return
            }
        }
        // EAN-13 is still off after the renewal.
        #expect(scanner.scan(ean, region: (x: 0, y: 0, width: ean.width, height: ean.height)).isEmpty)
    }

    /// Two EAN-13 labels of 1.7 and 1.8 px modules (Tests/Fixtures/ean13-scanned-before.jpg and
    /// ean13-scanned-after.jpg, pictures 13 and 14 of `small_ean.py --seed 16`). ZBar's decoder
    /// keeps the halves it read between scans: a scanner reused from the first picture joined the
    /// second's left half with the first's right half into `1629356701158`, its check digit
    /// holding, on 13 scan lines. Each scan starts afresh, so the second picture gives its own
    /// digits alone, whatever was scanned before, in stills and in video.
    @Test func noScanJoinsAHalfOfTheSymbolScannedBefore() throws {
        let before = try StillImage.load(path: Fixtures.path("ean13-scanned-before.jpg"))
        let after = try StillImage.load(path: Fixtures.path("ean13-scanned-after.jpg"))
        func whole(_ image: PixelBuffer) -> PlaneRegion { (x: 0, y: 0, width: image.width, height: image.height) }
        func texts(_ codes: [ScannedCode]) -> [String] { codes.map { String(decoding: $0.payload, as: UTF8.self) } }
        let scanner = BarcodeScanner(types: [.ean13], density: 1)
        // ZBar reads no whole symbol in the first picture, only its right half.
        #expect(texts(scanner.scan(before, region: whole(before))).allSatisfy { $0 == "7514649701158" })
        #expect(texts(scanner.scan(after, region: whole(after))) == ["1629356914053"])
    }

    @Test func halfResolutionReadsLargeCodesWhereFullResolutionDoes() throws {
        // frame0 (1280x720): a QR code of 7 px modules and an EAN-13 of 4 px modules.
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let full = BarcodeScanner(types: [.qr, .ean13]).scan(image, region: whole)
        let half = BarcodeScanner(types: [.qr, .ean13], resolution: .half).scan(image, region: whole)
        #expect(Set(half.map(\.payload)) == Set(full.map(\.payload)))
        #expect(full.count == 2)
        for code in half {
            let match = try #require(full.first { $0.type == code.type })
            #expect(code.corners.count == 4 && match.corners.count == 4, "\(code.type)")
            // Corners in the frame's pixels, within the 2 px one half-size pixel covers.
            for (a, b) in zip(code.corners, match.corners) {
                #expect(abs(a.x - b.x) <= 2 && abs(a.y - b.y) <= 2, "\(code.type): \(a) vs \(b)")
            }
        }
        // A region in frame pixels: the right 60 % holds both codes, the left third neither.
        #expect(BarcodeScanner(types: [.qr, .ean13], resolution: .half)
            .scan(image, region: (x: 512, y: 0, width: image.width - 512, height: image.height)).count == 2)
        #expect(BarcodeScanner(types: [.qr, .ean13], resolution: .half)
            .scan(image, region: (x: 0, y: 0, width: image.width / 3, height: image.height)).isEmpty)

        // The price: the EAN-13 fixture shrunk 4 times (1.5 px per module) still reads at full
        // resolution, not at half.
        let scaled = try Fixtures.shrunk(try StillImage.load(path: Fixtures.path("ean13.png")), by: 4)
        let region = (x: 0, y: 0, width: scaled.width, height: scaled.height)
        #expect(BarcodeScanner(types: [.ean13]).scan(scaled, region: region).count == 1)
        #expect(BarcodeScanner(types: [.ean13], resolution: .half).scan(scaled, region: region).isEmpty)
    }

    @Test func halvingGivesTheRoundedMeanOfEach2x2Block() {
        // 75 wide (odd; 37 outputs: two vector steps and a tail), stride 80, 9 rows (odd).
        let width = 75, height = 9, stride = 80
        let plane = (0..<(stride * height)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var half = [UInt8](repeating: 0, count: (width / 2) * (height / 2))
        lk_half_scale(plane, Int32(width), Int32(height), Int32(stride), &half)
        for y in 0..<(height / 2) {
            for x in 0..<(width / 2) {
                let sum = [plane[2 * y * stride + 2 * x], plane[2 * y * stride + 2 * x + 1],
                           plane[(2 * y + 1) * stride + 2 * x], plane[(2 * y + 1) * stride + 2 * x + 1]].reduce(0) { $0 + Int($1) }
                #expect(Int(half[y * (width / 2) + x]) == (sum + 2) / 4, "(\(x), \(y))")
            }
        }
    }

    @Test func qrUTF8IsReadExactly() throws {
        let code = try onlyCode("qr-utf8-ete.png")
        #expect(code.type == .qr)
        #expect(code.stringValue == "été")
        #expect(code.textEncoding == .utf8)
        #expect(code.payload == Array("été".utf8))
    }

    @Test func qrLatin1BytesFallBackToISO88591() throws {
        let code = try onlyCode("qr-latin1-ete.png")
        #expect(code.payload == [0xE9, 0x74, 0xE9])
        #expect(code.stringValue == "été")
        #expect(code.textEncoding == .isoLatin1)
    }

    @Test func qrKanjiSegmentIsShiftJIS() throws {
        let code = try onlyCode("qr-kanji.png")
        #expect(code.stringValue == "漢字テスト")
        #expect(code.textEncoding == .shiftJIS)
    }

    @Test func qrWithECIDesignatorIsConverted() throws {
        let code = try onlyCode("qr-eci3-ete.png")
        #expect(code.stringValue == "été")
    }

    @Test func hostilePayloadBytesAreExact() throws {
        let code = try onlyCode("qr-hostile.png")
        #expect(code.payload == (try Fixtures.bytes("qr-hostile.bin")))
        #expect(!code.payloadIsUTF8)
    }

    @Test func largestQRCodeIsExact() throws {
        let code = try onlyCode("qr-2953.png")
        #expect(code.payload.count == 2953)
        #expect(code.payload == (try Fixtures.bytes("qr-2953.bin")))
    }

    @Test func ean13IsExact() throws {
        let code = try onlyCode("ean13.png")
        #expect(code.type == .ean13)
        #expect(code.stringValue == "4006381333931")
        #expect(code.corners.count == 4)
    }

    @Test(arguments: [("ean8.png", MetadataObjectType.ean8, "96385074"),
                      ("code128.png", .code128, "Lookout-128"),
                      ("upca.png", .upcA, "036000291452")])
    func otherSymbologiesWhenRequested(name: String, type: MetadataObjectType, value: String) throws {
        let codes = try detect(name, types: [type])
        #expect(codes.count == 1)
        #expect(codes.first?.type == type)
        #expect((codes.first as? MachineReadableCodeObject)?.stringValue == value)
        // Not requested, not reported.
        #expect(try detect(name, types: [.qr]).isEmpty)
    }

    @Test func sampleFrameHoldsQREANAndTheKnownFace() throws {
        let expected = try Fixtures.sampleExpectation()
        let objects = try detect("frame0.jpg")
        let codes = objects.compactMap { $0 as? MachineReadableCodeObject }
        #expect(codes.first { $0.type == .qr }?.stringValue == expected.qr)
        #expect(codes.first { $0.type == .ean13 }?.stringValue == expected.ean13)
        let faces = objects.compactMap { $0 as? FaceObject }
        try #require(faces.count == 1, "expected one face, found \(faces.count)")
        let overlap = faces[0].pixelBounds.intersectionOverUnion(expected.faceBox)
        #expect(overlap >= 0.5, "face \(faces[0].pixelBounds) vs known \(expected.faceBox): IoU \(overlap)")
        // Normalized bounds are the pixel bounds over the frame size, top-left origin.
        #expect(abs(faces[0].bounds.x * 1280 - faces[0].pixelBounds.x) < 0.01)
        #expect(abs(faces[0].bounds.y * 720 - faces[0].pixelBounds.y) < 0.01)
    }

    @Test func blankFrameHoldsNothing() throws {
        #expect(try detect("blank.pgm").isEmpty)
    }

    @Test func rectOfInterestLimitsDetection() throws {
        // Left third: only the astronaut. Right half: only the codes.
        let left = try detect("frame0.jpg", rectOfInterest: Rect(x: 0, y: 0, width: 0.34, height: 1))
        #expect(left.map(\.type) == [.face])
        let right = try detect("frame0.jpg", rectOfInterest: Rect(x: 0.4, y: 0, width: 0.6, height: 1))
        #expect(Set(right.map(\.type)) == [.qr, .ean13])
    }

    @Test func typesNotRequestedAreNotReported() throws {
        let objects = try detect("frame0.jpg", types: [.ean13])
        #expect(objects.map(\.type) == [.ean13])
    }

    @Test func dhtLessFrameDecodesLikeTheOriginal() throws {
        let original = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let stripped = try StillImage.load(path: Fixtures.path("frame0-no-dht.jpg"))
        #expect(!(try Fixtures.bytes("frame0-no-dht.jpg")).containsMarker(0xC4))
        #expect(original.width == stripped.width && original.height == stripped.height)
        var differing = 0
        for y in stride(from: 0, to: original.height, by: 7) {
            for x in stride(from: 0, to: original.width, by: 7) where original[x, y] != stripped[x, y] { differing += 1 }
        }
        #expect(differing == 0)
    }
}

extension Array where Element == UInt8 {
    func containsMarker(_ marker: UInt8) -> Bool {
        indices.dropLast().contains { self[$0] == 0xFF && self[$0 + 1] == marker }
    }
}

@Suite("Metadata output configuration")
struct MetadataOutputConfigurationTests {
    @Test func typesAreUnavailableBeforeJoiningASession() {
        let output = MetadataOutput()
        #expect(output.availableMetadataObjectTypes.isEmpty)
        #expect(throws: CaptureError.self) { try output.setMetadataObjectTypes([.qr]) }
    }

    @Test func faceIsUnavailableWithoutItsModel() throws {
        let session = CaptureSession()
        let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: "/nonexistent/cascade.xml"))
        try session.addOutput(output)
        #expect(output.availableMetadataObjectTypes.contains(.qr))
        #expect(!output.availableMetadataObjectTypes.contains(.face))
        do {
            try output.setMetadataObjectTypes([.qr, .face])
            Issue.record("requesting faces without a model must fail")
        } catch {
            guard case .faceModelUnavailable(let path, _, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == "/nonexistent/cascade.xml")
        }
    }

    @Test func anOutputJoinsOneSession() throws {
        let output = MetadataOutput()
        let first = CaptureSession(), second = CaptureSession()
        try first.addOutput(output)
        #expect(!second.canAddOutput(output))
        #expect(throws: CaptureError.self) { try second.addOutput(output) }
    }
}
