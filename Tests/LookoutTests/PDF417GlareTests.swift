import CZXing
import Foundation
import Testing
@testable import Lookout

/// PDF417 tickets under glare (scripts/corpus.d/leaning_pdf417.py drew both fixtures): a leaning
/// symbol the glare breaks into pieces is read in the place the pieces make together, and a read
/// that used all of its error correction stands only when a second view reads the same bytes.
@Suite("PDF417 under glare")
struct PDF417GlareTests {
    /// Turned by 44.6 degrees, glare clipped white across its middle: the places of rows find the
    /// two halves, each with one of the start and stop patterns, and no half reads turned upright;
    /// joined, they do.
    @Test func aLeaningSymbolBrokenByGlareIsReadWhereItsPiecesJoin() throws {
        let image = try StillImage.load(path: Fixtures.path("pdf417-glare-pieces.png"))
        func places(_ kind: Int) -> [lk_zx_region] {
            ZXingFrameReader.places(kind, in: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
        }
        func read(_ regions: [lk_zx_region]) -> [String] {
            ZXingScanner(types: [.pdf417]).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                bytesPerRow: image.bytesPerRow, regions: regions, budget: 0,
                                                effort: ZXingFrameReader.placeEffort).map { String(decoding: $0.payload, as: UTF8.self) }
        }
        let pieces = places(LK_ZX_PLACES_ROWS)
        #expect(pieces.count >= 2)
        #expect(read(pieces).isEmpty, "a piece reads alone now: the fixture no longer tells")
        let joined = places(LK_ZX_PLACES_ROWS_JOINED)
        #expect(!joined.isEmpty)
        #expect(read(joined) == ["event row #542083"])
        // The label lies within (35, 35) to (550, 545) of the crop; a joined place holds it whole.
        #expect(joined.contains { $0.x <= 60 && $0.y <= 60 && $0.x + $0.width >= 530 && $0.y + $0.height >= 520 }, "\(joined)")
        let result = try lookout(["scan", "--types", "pdf417", Fixtures.path("pdf417-glare-pieces.png")])
        #expect(try jsonObjects(result).map { $0["value"] as? String } == ["event row #542083"])
    }

    /// Upright, glare over a third of its codewords: zxing-cpp decodes one guess at the glared
    /// codewords with no error correction to spare into 40 wrong characters. No other view reads
    /// those bytes, so nothing is reported rather than a wrong text.
    @Test func aReadWithNoErrorCorrectionToSpareStandsOnlyWhenASecondViewAgrees() throws {
        let result = try lookout(["scan", "--types", "pdf417", Fixtures.path("pdf417-glare-miscorrected.png")])
        #expect(result.status == 0, "\(result.stderr)")
        let values = try jsonObjects(result).compactMap { $0["value"] as? String }
        #expect(values.allSatisfy { $0 == "ticket row gate ticket hall entry #199003" }, "\(values)")
    }
}
