import Foundation
import Testing
@testable import Lookout

/// ZBar and zxing-cpp read the same symbol as the same type with the same text, whichever reads
/// it first: a line's `kind` and `value` do not depend on the library (`decoder`). The fixtures are
/// zint's drawings (scripts/make-fixtures).
@Suite("Decoders agree")
struct DecoderAgreementTests {
    /// What each decoder reports in `image` for `types`: ZBar's reads, then zxing-cpp's.
    static func reads(_ image: PixelBuffer, _ types: Set<MetadataObjectType>) -> [(decoder: String, codes: [ScannedCode])] {
        let zbar = BarcodeScanner(types: types).scan(image, region: (0, 0, image.width, image.height))
        let zxing = ZXingScanner(types: types).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                    bytesPerRow: image.bytesPerRow)
        return [("zbar", zbar), ("zxing", zxing)]
    }

    /// zint's drawing of a book's EAN-13 (978-0-306-40615-7, `isbn.png`), read by ZBar and by
    /// zxing-cpp for the types asked for: both report it as the same type with the same text.
    @Test func aBooksCodeIsTheTypeAskedFor() throws {
        let book = try StillImage.load(path: Fixtures.path("isbn.png")), other = try StillImage.load(path: Fixtures.path("ean13.png"))
        let cases: [(PixelBuffer, Set<MetadataObjectType>, [MetadataObjectType], [String])] = [
            (book, [.isbn10], [.isbn10], ["0306406152"]), (book, [.isbn10, .ean13], [.isbn10], ["0306406152"]),
            (book, [.isbn10, .isbn13, .ean13], [.isbn13], ["9780306406157"]),
            (book, [.isbn13], [.isbn13], ["9780306406157"]), (book, [.isbn13, .ean13], [.isbn13], ["9780306406157"]),
            (book, [.ean13], [.ean13], ["9780306406157"]), (other, [.isbn10, .isbn13], [], []),
        ]
        for (image, types, type, text) in cases {
            for (decoder, codes) in Self.reads(image, types) {
                #expect(codes.map(\.type) == type, "\(decoder) \(types)")
                #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == text, "\(decoder) \(types)")
            }
        }
    }

    /// zint's UPC-E symbol 0302157 (check digit 6, `upce.png`), asked for as UPC-E: its own 8
    /// digits from both (zxing-cpp 3 gives the 13 of its UPC-A, which are turned back).
    @Test func aUPCESymbolIsItsOwnEightDigits() throws {
        let image = try StillImage.load(path: Fixtures.path("upce.png"))
        for (decoder, codes) in Self.reads(image, [.upcE]) {
            #expect(codes.map(\.type) == [.upcE], "\(decoder)")
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["03021576"], "\(decoder)")
        }
    }

    /// zxing-cpp's UPC-E reads wait for confirmation (UPC-E's check is only the parity pattern of
    /// six digits). An EAN-13's left half has UPC-E's shape: in `ean13-read-twice.png` (a label
    /// photographed, from the corpus) `scan`'s looks asked for UPC-E read a half of the EAN-13
    /// as UPC-E where they read the EAN-13 too; that half is not reported, whether EAN-13 is
    /// asked for or not.
    @Test func anEAN13sLeftHalfIsNoUPCE() throws {
        let upcE = try StillImage.load(path: Fixtures.path("upce.png"))
        let reads = ZXingScanner(types: [.upcE]).scan(plane: upcE.baseAddress, width: upcE.width, height: upcE.height,
                                                       bytesPerRow: upcE.bytesPerRow)
        #expect(reads.map(\.needsConfirmation) == [true])
        let ean = try StillImage.load(path: Fixtures.path("ean13-read-twice.png"))
        for types: Set<MetadataObjectType> in [[.upcE], [.upcE, .ean13]] {
            let reader = StillCodeReader(types: types, zbar: BarcodeScanner(types: types), processors: 1)
            let codes = reader.read(ean, region: (x: 0, y: 0, width: ean.width, height: ean.height), budget: 600_000,
                                    planeIsHalfSize: false)
            #expect(!codes.contains { $0.type == .upcE }, "\(types)")
            #expect(codes.map(\.type) == (types.contains(.ean13) ? [.ean13] : []), "\(types)")
        }
    }

    /// UPC-E's 8 digits and its UPC-A's 12, both ways, for each of UPC-E's four shapes (the last of
    /// its six digits 0-2, 3, 4, 5-9); 12 digits no UPC-E holds give nil.
    @Test func upcEIsCompressedAsItIsExpanded() {
        for (upcE, upcA) in [("01234505", "012000003455"), ("01234535", "012300000455"), ("01234545", "012340000055"),
                             ("01234565", "012345000065"), ("03021576", "030215000076")] {
            #expect(GS1Data.expandUPCE(Array(upcE.utf8)) == Array(upcA.utf8), "\(upcE)")
            #expect(GS1Data.compressUPCE(Array(upcA.utf8)) == Array(upcE.utf8), "\(upcA)")
        }
        #expect(GS1Data.compressUPCE(Array("036000291452".utf8)) == nil)
        #expect(GS1Data.compressUPCE(Array("01234".utf8)) == nil)
    }
}
