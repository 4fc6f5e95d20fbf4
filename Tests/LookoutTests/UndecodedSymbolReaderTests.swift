import Foundation
@testable import Lookout
import Testing

/// Symbols zxing-cpp finds but cannot decode, read again in their own place
/// (`UndecodedSymbolReader`).
@Suite("Undecoded symbols")
struct UndecodedSymbolReaderTests {
    /// A QR code of 2.3-pixel modules wrapped round a can by 45 degrees (Tests/Fixtures/
    /// qr-undecoded.png, from qr-bench/curved/030.jpg), whose centre lies at about (110, 120).
    static let text = "0-RCYQ9LHBRN-Y-7XX0CT7X1MO-CDS"
    static let centre = Point(x: 110, y: 120)

    /// zxing-cpp finds its finders and format but reads nothing, nor does it in a sharpened copy;
    /// its own place, enlarged and made black and white there, gives the exact text, once, where
    /// the symbol is.
    @Test func aSymbolFoundButNotDecodedIsReadInItsOwnPlace() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-undecoded.png"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let scanner = ZXingScanner(types: [.qr])
        #expect(scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).isEmpty,
                "zxing-cpp reads it as it is: the test no longer tests a symbol it cannot decode")
        let places = scanner.undecoded(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
        #expect(places.count == 1)
        #expect(places.contains { $0.type == .qr && Rect.enclosing($0.corners).contains(Self.centre) }, "\(places)")
        let still = StillCodeReader(types: [.qr], zbar: nil, processors: 1)
        let sharpened = still.lanes[0].withLock { $0.readCopy(.sharpened, of: image, region: whole).joined() }
        #expect(sharpened.isEmpty, "a sharpened copy reads it: the test no longer needs the symbol's own place")

        let reader = try #require(UndecodedSymbolReader(types: [.qr, .ean13]))
        let codes = reader.read(image, region: whole, known: [], deadline: .max)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.text])
        #expect(codes.allSatisfy { $0.type == .qr && Rect.enclosing($0.corners).contains(Self.centre) }, "\(codes.map(\.corners))")
        // A region holding the symbol reads it there, in the plane's pixels.
        let part = (x: 40, y: 50, width: 180, height: 160)
        let inPart = reader.read(image, region: part, known: [], deadline: .max)
        #expect(inPart.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.text])
        #expect(inPart.allSatisfy { Rect.enclosing($0.corners).contains(Self.centre) }, "\(inPart.map(\.corners))")
    }

    /// A symbol whose place a code read already covers is not read again, and a deadline passed
    /// reads nothing; a picture with no symbol gives no place and no code.
    @Test func knownCodesAndThePassedDeadlineAreLeftAlone() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-undecoded.png"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let reader = try #require(UndecodedSymbolReader(types: [.qr]))
        let known = StillCodeMergeTests.code("x", .qr, x: 60, y: 70, width: 100, height: 100)
        #expect(reader.read(image, region: whole, known: [known], deadline: .max).isEmpty)
        #expect(reader.read(image, region: whole, known: [], deadline: 0).isEmpty)
        #expect(!reader.read(image, region: whole, known: [], deadline: .max).isEmpty)

        let blank = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let all = (x: 0, y: 0, width: blank.width, height: blank.height)
        #expect(reader.read(blank, region: all, known: [], deadline: .max).isEmpty)
        #expect(UndecodedSymbolReader(types: [.ean13, .code128]) == nil)
    }

    /// A boarding pass's PDF417 seen at a slant (Tests/Fixtures/pdf417-sheared.png): zxing-cpp
    /// finds its start and stop patterns and row indicators, but the codewords its scan lines
    /// sample across the leaning rows fail Reed-Solomon. Stood square by the corners it found, it
    /// gives the exact text once, its corners back on the label, also from a region holding it.
    @Test func aPDF417FoundButNotDecodedIsReadStoodSquareByItsCorners() throws {
        let image = try StillImage.load(path: Fixtures.path("pdf417-sheared.png"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let text = "M1EFWOBFBG/ODHM       E6CNGZK LDOIASAF 2448 052C029A0048 100"
        let scanner = ZXingScanner(types: [.pdf417])
        #expect(scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).isEmpty,
                "zxing-cpp reads it as it is: the test no longer tests a symbol it cannot decode")
        let places = scanner.undecoded(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
        #expect(places.map(\.type) == [.pdf417], "\(places)")

        let reader = try #require(UndecodedSymbolReader(types: [.pdf417, .qr]))
        // The label's corners in the crop: (50, 52), (427, 103), (468, 185), (107, 125).
        func onTheLabel(_ codes: [ScannedCode]) -> Bool {
            codes.allSatisfy { $0.type == .pdf417 && $0.corners.count == 4
                && $0.corners.allSatisfy { $0.x >= 30 && $0.x <= 490 && $0.y >= 30 && $0.y <= 210 } }
        }
        let codes = reader.read(image, region: whole, known: [], deadline: .max)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(onTheLabel(codes), "\(codes.map(\.corners))")
        let part = (x: 20, y: 30, width: 480, height: 190)
        let inPart = reader.read(image, region: part, known: [], deadline: .max)
        #expect(inPart.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(onTheLabel(inPart), "\(inPart.map(\.corners))")
        // Asked for matrix symbols only, it takes no PDF417 place.
        #expect(try #require(UndecodedSymbolReader(types: [.qr, .dataMatrix])).read(image, region: whole, known: [], deadline: .max).isEmpty)
    }
}
