import Foundation
import Testing
@testable import Lookout

/// PDF417, Aztec and DataMatrix (zint drawings, Tests/Fixtures) through `lookout scan`: exact
/// bytes, GS1 separators, corners, the text format, the schema.
@Suite("zxing kinds in scan")
struct ZXingKindsScanTests {
    static let boardingPass = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"
    /// `[01]09506000134352[17]251231[10]ABC123[21]XYZ` as read: FNC1 after the variable-length
    /// field as GS (0x1D); the leading FNC1 is what makes it GS1, not a byte of the data.
    static let gs1 = "01095060001343521725123110ABC123\u{1D}21XYZ"

    static func scan(_ names: [String], types: String = "pdf417,aztec,datamatrix") throws -> [[String: Any]] {
        let result = try lookout(["scan", "--types", types] + names.map { Fixtures.path($0) })
        #expect(result.status == 0, "\(result.stderr)")
        try validateAgainstSchema(result.lines)
        return try jsonObjects(result)
    }

    @Test func eachKindIsReadWithItsExactText() throws {
        let objects = try Self.scan(["pdf417-bcbp.png", "aztec-bcbp.png", "datamatrix-gs1.png", "aztec-gs1.png"])
        #expect(objects.map { $0["kind"] as? String } == ["pdf417", "aztec", "datamatrix", "aztec"])
        #expect(objects.map { $0["symbology"] as? String } == ["PDF417", "Aztec", "DataMatrix", "Aztec"])
        #expect(objects.map { $0["value"] as? String } == [Self.boardingPass, Self.boardingPass, Self.gs1, Self.gs1])
        #expect(objects.map { $0["length"] as? Int } == [60, 60, 38, 38])
        #expect(objects.allSatisfy { $0["decoder"] as? String == "zxing" && $0["raw_base64"] == nil })
    }

    /// Bytes that are not text: raw_base64 holds them exactly (NUL, 0x80, 0xFF among them).
    @Test func binaryPayloadsKeepTheirBytes() throws {
        let objects = try Self.scan(["datamatrix-binary.png"])
        let object = try #require(objects.first)
        #expect(objects.count == 1)
        let expected = try Fixtures.bytes("datamatrix-binary.bin")
        #expect(object["raw_base64"] as? String == Data(expected).base64EncodedString())
        #expect(object["length"] as? Int == expected.count)
    }

    /// Corners are the symbol's, inside the image, in the same conventions as ZBar's codes:
    /// pixel_corners in pixels, corners and bounds as fractions.
    @Test func cornersLieOnTheSymbol() throws {
        let objects = try Self.scan(["datamatrix-gs1.png", "pdf417-bcbp.png"])
        try #require(objects.count == 2)
        // datamatrix-gs1.png: 120x120 pixels, a 4-module (16 px) quiet zone around the symbol.
        let corners = try #require(objects[0]["pixel_corners"] as? [[String: Double]])
        // zxing-cpp 3 puts the far corners on the symbol's last pixel (103), 1.4 past it (104).
        let expected: [[Double]] = [[16, 16], [104, 16], [104, 104], [16, 104]]
        #expect(corners.count == 4)
        for (corner, truth) in zip(corners, expected) {
            #expect(abs((corner["x"] ?? -9) - truth[0]) <= 1 && abs((corner["y"] ?? -9) - truth[1]) <= 1, "\(corners)")
        }
        let bounds = try #require(objects[0]["bounds"] as? [String: Double])
        #expect(bounds["x"] == (16.0 / 120).rounded6 && abs((bounds["width"] ?? 0) - 88.0 / 120) <= 1.0 / 120)
        let image = try #require(objects[1]["image"] as? [String: Int])
        let pdfCorners = try #require(objects[1]["pixel_corners"] as? [[String: Double]])
        try #require(pdfCorners.count == 4)
        let width = Double(try #require(image["width"])), height = Double(try #require(image["height"]))
        for point in pdfCorners {
            let x = try #require(point["x"]), y = try #require(point["y"])
            #expect(x > 0 && y > 0 && x < width && y < height)
        }
    }

    /// zbarcam's format with zxing-cpp's names; the GS byte stays in the line; zxing-cpp's AIM
    /// identifiers after a tab, and the GS1 DataMatrix's human-readable form after another.
    @Test func theTextFormatNamesTheKinds() throws {
        let result = try lookout(["scan", "--types", "pdf417,aztec,datamatrix", "--format", "text",
                                  Fixtures.path("pdf417-bcbp.png"), Fixtures.path("aztec-bcbp.png"), Fixtures.path("datamatrix-gs1.png")])
        #expect(result.lines == ["PDF417:" + Self.boardingPass + "\t]L2", "Aztec:" + Self.boardingPass + "\t]z0",
                                 "DataMatrix:" + Self.gs1 + "\t]d2\t(01)09506000134352(17)251231(10)ABC123(21)XYZ"])
    }

    /// zxing-cpp 1.4 found a DataMatrix only about the middle of what it read, and missed this one
    /// in a corner of the coins; scan reads it, where it is.
    @Test func aSymbolOffTheMiddleOfABusyPictureIsRead() throws {
        let objects = try Self.scan(["datamatrix-off-centre.png"])
        #expect(objects.map { $0["value"] as? String } == [Self.gs1])
        let corners = try #require(objects.first?["pixel_corners"] as? [[String: Double]])
        // Pasted at (260, 175) with a 16 px quiet zone: the symbol spans 276-364 and 191-279.
        #expect(corners.compactMap { $0["x"] }.allSatisfy { (270...370).contains($0) })
        #expect(corners.compactMap { $0["y"] }.allSatisfy { (185...285).contains($0) } && corners.count == 4)
    }

    /// A PDF417 seen at a slant, its bars leaning against its rows: turning it by its edges'
    /// lean leaves them crossed, so only the copy with the symbol stood square (its outline's
    /// rectangle or corners) is read, its corners back on the label in the picture.
    @Test func aShearedPDF417IsReadStoodSquare() throws {
        let image = try StillImage.load(path: Fixtures.path("pdf417-sheared.png"))
        func read(_ effort: ZXingScanner.Effort) -> [ScannedCode] {
            ZXingScanner(types: [.pdf417]).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                bytesPerRow: image.bytesPerRow, effort: effort)
        }
        #expect(read([.thorough, .turned]).isEmpty, "zxing-cpp now reads it turned: the fixture no longer tells")
        let squared = read([.thorough, .turned, .rectified])
        #expect(squared.map { String(decoding: $0.payload, as: UTF8.self) } == ["M1EFWOBFBG/ODHM       E6CNGZK LDOIASAF 2448 052C029A0048 100"])
        // The label's corners in the crop: (50, 52), (427, 103), (468, 185), (107, 125).
        for corner in squared.first?.corners ?? [] {
            #expect(corner.x >= 30 && corner.x <= 490 && corner.y >= 30 && corner.y <= 210, "\(squared.first?.corners ?? [])")
        }
        let objects = try Self.scan(["pdf417-sheared.png"], types: "pdf417")
        #expect(objects.count == 1 && objects.first?["aim_id"] as? String == "]L2")
    }

    /// Only the kinds asked for are reported: the Aztec symbol is not read as a DataMatrix, and
    /// the defaults read none of the new kinds.
    /// A PDF417 turned by 20 degrees over the coins: zxing-cpp reads PDF417 rows only within a few
    /// degrees of level and finds nothing in the whole picture; scan finds the rows of bars and
    /// reads them turned upright, its corners back on the picture's label.
    @Test func aLeaningPDF417IsReadTurnedUpright() throws {
        let image = try StillImage.load(path: Fixtures.path("pdf417-leaning.png"))
        let whole = ZXingScanner(types: [.pdf417]).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                         bytesPerRow: image.bytesPerRow)
        #expect(whole.isEmpty, "zxing-cpp now reads it as it is: the fixture no longer leans enough")
        let objects = try Self.scan(["pdf417-leaning.png"], types: "pdf417")
        #expect(objects.map { $0["value"] as? String } == [Self.boardingPass])
        // The label (602 x 354 pixels, turned) was pasted at (180, 200) of the 960 x 760 picture.
        let corners = try #require(objects.first?["pixel_corners"] as? [[String: Double]])
        #expect(corners.count == 4)
        for corner in corners {
            let x = try #require(corner["x"]), y = try #require(corner["y"])
            #expect(x >= 180 && x <= 782 && y >= 200 && y <= 554, "\(corners)")
        }
    }

    @Test func onlyTheKindsAskedForAreRead() throws {
        #expect(try Self.scan(["aztec-bcbp.png", "datamatrix-gs1.png"], types: "datamatrix").map { $0["kind"] as? String } == ["datamatrix"])
        let defaults = try lookout(["scan", Fixtures.path("aztec-bcbp.png"), Fixtures.path("pdf417-bcbp.png")])
        #expect(defaults.status == 0 && defaults.lines.isEmpty)
    }

    @Test func theKindsAreNamedInHelpAndAccepted() throws {
        let help = try lookout(["scan", "--help"]).stdout
        let text = String(decoding: help, as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        #expect(text.contains("pdf417, aztec, datamatrix (read by zxing-cpp"))
        let unknown = try lookout(["scan", "--types", "maxicode", Fixtures.path("aztec-bcbp.png")])
        #expect(unknown.status == 64 && unknown.stderr.contains("pdf417, aztec, datamatrix"))
    }
}

private extension Double {
    /// As the line encoder writes fractions: six decimals.
    var rounded6: Double { (self * 1e6).rounded() / 1e6 }
}
