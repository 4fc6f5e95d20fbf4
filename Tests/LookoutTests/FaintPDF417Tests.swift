import COpenCV
import Foundation
import Testing
@testable import Lookout

/// A faint PDF417 label (in the dark, in low contrast) read in the still's contrast-normalised
/// copy where rows of bars are (`ZXingFrameReader.readFaintRows`).
@Suite("faint PDF417")
struct FaintPDF417Tests {
    /// Tests/Fixtures/pdf417-faint.png: a label of 1.5-px modules on dark gravel whose grey levels
    /// span about 30, leaning 17 degrees. The picture has no place of rows that reads; the copy
    /// does, once, on the label.
    @Test func aFaintLabelIsReadInItsContrastNormalisedCopy() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("pdf417-faint.png", types: [.pdf417])
        let rows = ZXingFrameReader.rowsPlaces(in: image.baseAddress, width: image.width, height: image.height,
                                               bytesPerRow: image.bytesPerRow)
        #expect(ZXingScanner(types: [.pdf417]).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                    bytesPerRow: image.bytesPerRow, regions: rows, budget: 0,
                                                    effort: ZXingFrameReader.placeEffort).isEmpty,
                "the picture's places of rows read it: the test no longer tests the normalised copy")
        let faint = ZXingFrameReader(types: [.pdf417]).readFaintRows(image, budget: 600_000)
        #expect(faint.map { Data($0.payload).base64EncodedString() } == ["xqfx89orR0gr"])
        // The label lies about (150, 120) to (335, 210) of the crop.
        let box = Rect.enclosing(faint.first?.corners ?? [])
        #expect(box.x > 100 && box.x + box.width < 390 && box.y > 70 && box.y + box.height < 260, "\(box)")
        // And so `scan` reads it, once.
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { Data($0.payload).base64EncodedString() } == ["xqfx89orR0gr"])
        let result = try lookout(["scan", "--types", "pdf417", Fixtures.path("pdf417-faint.png")])
        #expect(try jsonObjects(result).compactMap { $0["raw_base64"] as? String } == ["xqfx89orR0gr"])
    }

    /// A picture without a PDF417 symbol gives none from its normalised copy.
    @Test(arguments: ["noface-coins.png", "qr-blurred.png", "aztec-defocused.png"])
    func aPictureWithoutPDF417GivesNone(fixture: String) throws {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        #expect(ZXingFrameReader(types: [.pdf417]).readFaintRows(image, budget: 600_000).isEmpty)
    }

    /// Normalising: flat ground stays mid-grey, a faint step of 10 levels becomes one of about 50
    /// (its deviation of 5 levels over the window, plus 4, is 48 levels), and bad arguments are refused.
    @Test func normalisingStretchesAFaintStepAndKeepsFlatGroundMidGrey() {
        let (width, height) = (64, 32)
        let step = (0..<(width * height)).map { UInt8($0 % width < 32 ? 40 : 50) }
        var out = [UInt8](repeating: 0, count: width * height)
        let made = step.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                [lk_normalize_contrast(source.baseAddress!, Int32(width), Int32(height), Int32(width), 8, target.baseAddress!),
                 lk_normalize_contrast(source.baseAddress!, Int32(width), Int32(height), Int32(width), 0, target.baseAddress!),
                 lk_normalize_contrast(source.baseAddress!, Int32(width), Int32(height), Int32(width - 1), 8, target.baseAddress!),
                 lk_normalize_contrast(nil, Int32(width), Int32(height), Int32(width), 8, target.baseAddress!)]
            }
        }
        #expect(made == [0, -1, -1, -1])
        let row = Array(out[(height / 2 * width)..<(height / 2 * width + width)])
        // More than a window (17 px) from the step: flat, mid-grey.
        #expect(row[0...10].allSatisfy { $0 == 128 } && row[53...].allSatisfy { $0 == 128 }, "\(row)")
        // Beside it: 25 levels below the middle and 25 above.
        #expect((100...106).contains(row[31]) && (150...156).contains(row[32]), "\(row)")
    }
}
