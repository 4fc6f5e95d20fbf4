import Foundation
import Testing
@testable import Lookout

/// AIM symbology identifiers (`aim_id`): from ZBar's types and modifier flags, on the object, in
/// the JSON and text lines. The fixtures are zint's and qrencode's drawings:
///   zint -b QRCODE --gs1 --quietzones --scale=3 -d '[01]09506000134352[10]ABC123[21]XYZ[17]271231' -o qr-gs1.png
///   zint -b GS1_128 --quietzones --scale=2 -d '[01]09506000134352[10]ABC[21]XY' -o code128-gs1.png
///   zint -b DBAR_OMN --scale=2 -d '0950600013435' -o databar.png
///   qrencode -s 4 -o qr-digital-link.png 'https://id.gs1.org/01/09506000134352/10/ABC123?17=271231'
@Suite("AIM symbology identifiers")
struct AIMIdentifierTests {
    /// The GS1 QR code's payload as ZBar and zxing-cpp give it: GS after each variable field.
    static let gs1QR = "010950600013435210ABC123\u{1D}21XYZ\u{1D}17271231"
    static let gs1QRText = "(01)09506000134352(10)ABC123(21)XYZ(17)271231"

    @Test func zbarTypesAndModifiers() {
        let plain: [(MetadataObjectType, String)] = [
            (.qr, "]Q1"), (.ean13, "]E0"), (.upcA, "]E0"), (.upcE, "]E0"), (.isbn10, "]E0"), (.isbn13, "]E0"),
            (.ean8, "]E4"), (.interleaved2of5, "]I0"), (.dataBar, "]e0"), (.dataBarExpanded, "]e0"), (.codabar, "]F0"),
            (.code39, "]A0"), (.code93, "]G0"), (.code128, "]C0"), (.pdf417, "]L2"), (.aztec, "]z0"), (.dataMatrix, "]d1"),
        ]
        for (type, identifier) in plain {
            #expect(SymbologyIdentifier.zbar(type, gs1: false, aim: false) == identifier, "\(type)")
            #expect(SymbologyIdentifier.isWellFormed(identifier))
        }
        #expect(plain.map(\.0).sorted() == MetadataObjectType.allCodeTypes.sorted())
        #expect(SymbologyIdentifier.zbar(.qr, gs1: true, aim: false) == "]Q3")
        #expect(SymbologyIdentifier.zbar(.qr, gs1: false, aim: true) == "]Q5")
        #expect(SymbologyIdentifier.zbar(.code128, gs1: true, aim: false) == "]C1")
        #expect(SymbologyIdentifier.zbar(.code128, gs1: false, aim: true) == "]C2")
        #expect(SymbologyIdentifier.zbar(.dataBar, gs1: true, aim: false) == "]e0")
        #expect(SymbologyIdentifier.zbar(.ean13, gs1: true, aim: false) == "]E0")
        for malformed in ["", "Q1", "]Q", "]Q10", "]1Q", "]Q ", "\u{1D}Q1"] { #expect(!SymbologyIdentifier.isWellFormed(malformed)) }
    }

    /// What ZBar reads in zint's drawings, with the identifier its modifiers give.
    @Test func zbarReadsGiveTheirIdentifiers() throws {
        let cases: [(String, MetadataObjectType, String, String)] = [
            ("qr-gs1.png", .qr, "]Q3", Self.gs1QR),
            ("qr-utf8-ete.png", .qr, "]Q1", "été"),
            ("code128-gs1.png", .code128, "]C1", "010950600013435210ABC\u{1D}21XY"),
            ("code128.png", .code128, "]C0", "Lookout-128"),
            ("databar.png", .dataBar, "]e0", "0109506000134352"),
            ("ean13.png", .ean13, "]E0", "4006381333931"),
            ("ean8.png", .ean8, "]E4", "96385074"),
            ("upca.png", .upcA, "]E0", "036000291452"),
        ]
        for (name, type, identifier, text) in cases {
            let image = try StillImage.load(path: Fixtures.path(name))
            let codes = BarcodeScanner(types: [type]).scan(image, region: (0, 0, image.width, image.height))
            #expect(codes.map(\.symbologyIdentifier) == [identifier], "\(name)")
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text], "\(name)")
        }
    }

    static func code(_ text: String, _ type: MetadataObjectType = .qr, identifier: String?) -> MachineReadableCodeObject {
        let pool = BufferPool(count: 1)
        let index = pool.acquire(capacity: 64, wait: false)!
        let image = PixelBuffer(width: 8, height: 8, bytesPerRow: 8, pool: pool, poolIndex: index)
        let frame = SampleBuffer(sequence: 0, presentationTime: .zero, wallClockTime: .now(),
                                 formatDescription: VideoFormatDescription(width: 8, height: 8, pixelFormat: .gray), imageBuffer: image)
        return MachineReadableCodeObject(type: type, frame: frame, payload: Array(text.utf8),
                                         pixelCorners: [Point(x: 1, y: 1), Point(x: 1, y: 7), Point(x: 7, y: 7), Point(x: 7, y: 1)],
                                         symbologyIdentifier: identifier)
    }

    /// The decoder's identifier is kept; none, or a malformed one, gives the type's plain one.
    @Test func theObjectCarriesTheIdentifierAndItsGS1Data() {
        #expect(Self.code("x", .dataMatrix, identifier: "]d2").symbologyIdentifier == "]d2")
        #expect(Self.code("x", .dataMatrix, identifier: nil).symbologyIdentifier == "]d1")
        #expect(Self.code("x", .dataMatrix, identifier: "d2").symbologyIdentifier == "]d1")
        #expect(Self.code(Self.gs1QR, identifier: "]Q3").gs1?.humanReadable == Self.gs1QRText)
        #expect(Self.code(Self.gs1QR, identifier: "]Q1").gs1 == nil)
        // Not GS1 data after all: no gs1, and the code keeps its value.
        let broken = Self.code("0109506000134353", identifier: "]Q3")
        #expect(broken.gs1 == nil && broken.stringValue == "0109506000134353")
    }

    static func line(_ object: MachineReadableCodeObject) throws -> [String: Any] {
        var encoder = DetectionLineEncoder(source: "test")
        let bytes = encoder.encode(object)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes.dropLast())) as? [String: Any])
    }

    @Test func jsonLinesWriteAimIDAndGS1() throws {
        var encoder = DetectionLineEncoder(source: "test")
        let text = String(decoding: encoder.encode(Self.code(Self.gs1QR, identifier: "]Q3")), as: UTF8.self)
        #expect(text.contains(#""symbology":"QR-Code","aim_id":"]Q3","value":"010950600013435210ABC123\u001d21XYZ\u001d17271231""#), "\(text)")
        #expect(text.contains(#""decoder":"zbar","gs1":{"elements":[{"ai":"01","value":"09506000134352"},{"ai":"10","value":"ABC123"},{"ai":"21","value":"XYZ"},{"ai":"17","value":"271231"}],"hri":"(01)09506000134352(10)ABC123(21)XYZ(17)271231","digital_link":false},"frame":0"#), "\(text)")
        let link = try Self.line(Self.code("https://id.gs1.org/01/09506000134352/10/ABC123?17=271231", identifier: "]Q1"))
        #expect(link["aim_id"] as? String == "]Q1")
        let gs1 = try #require(link["gs1"] as? [String: Any])
        #expect(gs1["digital_link"] as? Bool == true && gs1["hri"] as? String == "(01)09506000134352(10)ABC123(17)271231")
        let plain = try Self.line(Self.code("hello", identifier: nil))
        #expect(plain["aim_id"] as? String == "]Q1" && plain["gs1"] == nil && plain["value"] as? String == "hello")
        try validateAgainstSchema([text.trimmingCharacters(in: .newlines)])
    }

    /// An object seen again is written from the last line's parts: a change of identifier alone
    /// makes a new line.
    @Test func aRestampedLineFollowsTheIdentifier() throws {
        var encoder = DetectionLineEncoder(source: "test")
        let first = String(decoding: encoder.encode(Self.code(Self.gs1QR, identifier: "]Q3")), as: UTF8.self)
        let second = String(decoding: encoder.encode(Self.code(Self.gs1QR, identifier: "]Q1")), as: UTF8.self)
        #expect(first.contains(#""aim_id":"]Q3""#) && first.contains(#""gs1":"#))
        #expect(second.contains(#""aim_id":"]Q1""#) && !second.contains(#""gs1":"#))
    }

    @Test func textLinesAddTheIdentifierAndHRI() {
        let encoder = TextLineEncoder()
        #expect(String(decoding: encoder.encode(Self.code("hello", identifier: nil)), as: UTF8.self) == "QR-Code:hello\t]Q1\n")
        #expect(String(decoding: encoder.encode(Self.code(Self.gs1QR, identifier: "]Q3")), as: UTF8.self) ==
                "QR-Code:" + Self.gs1QR + "\t]Q3\t" + Self.gs1QRText + "\n")
        #expect(String(decoding: encoder.encode(Self.code("4006381333931", .ean13, identifier: nil)), as: UTF8.self) ==
                "EAN-13:4006381333931\t]E0\t(01)04006381333931\n")
    }
}

/// `lookout scan` on GS1 symbols: the identifier and the GS1 data reach the lines, valid against
/// the schema, whichever reader read them.
@Suite("GS1 in scan lines")
struct GS1ScanTests {
    @Test func gs1SymbolsGiveTheirElements() throws {
        let names = ["qr-gs1.png", "code128-gs1.png", "qr-digital-link.png", "datamatrix-gs1.png", "qr-utf8-ete.png"]
        let result = try lookout(["scan", "--types", "qr,code128,datamatrix"] + names.map { Fixtures.path($0) })
        #expect(result.status == 0, "\(result.stderr)")
        try validateAgainstSchema(result.lines)
        let objects = try jsonObjects(result)
        #expect(objects.map { $0["aim_id"] as? String } == ["]Q3", "]C1", "]Q1", "]d2", "]Q1"])
        let gs1 = objects.map { $0["gs1"] as? [String: Any] }
        #expect(gs1.map { $0?["hri"] as? String } == [
            AIMIdentifierTests.gs1QRText, "(01)09506000134352(10)ABC(21)XY", "(01)09506000134352(10)ABC123(17)271231",
            "(01)09506000134352(17)251231(10)ABC123(21)XYZ", nil,
        ])
        #expect(gs1.map { $0?["digital_link"] as? Bool } == [false, false, true, false, nil])
        let elements = try #require(gs1[0]?["elements"] as? [[String: String]])
        #expect(elements == [["ai": "01", "value": "09506000134352"], ["ai": "10", "value": "ABC123"],
                             ["ai": "21", "value": "XYZ"], ["ai": "17", "value": "271231"]])
        // value stays the payload as read.
        #expect(objects.first?["value"] as? String == AIMIdentifierTests.gs1QR)
    }

    /// In video ZBar reads first: its modifier flags reach the lines (a mono Y4M of the drawings on
    /// standard input, three frames each).
    @Test func inVideoZBarsModifiersReachTheLines() throws {
        var stream = Data()
        for name in ["qr-gs1.png", "code128-gs1.png"] {
            let image = try StillImage.load(path: Fixtures.path(name))
            stream.append(Data("YUV4MPEG2 W\(image.width) H\(image.height) F10:1 Ip A1:1 Cmono\n".utf8))
            for _ in 0..<3 {
                stream.append(Data("FRAME\n".utf8))
                for row in 0..<image.height {
                    stream.append(Data(bytes: image.baseAddress + row * image.bytesPerRow, count: image.width))
                }
            }
            let result = try lookout(["run", "--input", "-", "--types", "qr,code128", "--events", "changes"], input: stream)
            stream = Data()
            #expect(result.status == 0, "\(result.stderr)")
            try validateAgainstSchema(result.lines)
            let codes = try jsonObjects(result).filter { $0["kind"] as? String == "code" }
            #expect(codes.map { $0["decoder"] as? String } == ["zbar"], "\(name)")
            #expect(codes.map { $0["aim_id"] as? String } == [name.hasPrefix("qr") ? "]Q3" : "]C1"], "\(name)")
            #expect(codes.map { ($0["gs1"] as? [String: Any])?["hri"] as? String } ==
                    [name.hasPrefix("qr") ? AIMIdentifierTests.gs1QRText : "(01)09506000134352(10)ABC(21)XY"], "\(name)")
        }
    }

    @Test func theTextFormatEndsWithTheIdentifierAndHRI() throws {
        let result = try lookout(["scan", "--types", "qr", "--format", "text", Fixtures.path("qr-gs1.png")])
        #expect(result.lines == ["QR-Code:" + AIMIdentifierTests.gs1QR + "\t]Q3\t" + AIMIdentifierTests.gs1QRText])
    }
}
