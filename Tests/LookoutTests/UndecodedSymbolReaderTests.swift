import CZXing
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
        let places = scanner.undecoded(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).places
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
        let places = scanner.undecoded(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).places
        #expect(places.map(\.type) == [.pdf417], "\(places)")

        let reader = try #require(UndecodedSymbolReader(types: [.pdf417, .qr]))
        // The symbol's corners, in order, within a few pixels of the label's corners in the
        // crop: (50, 52), (427, 103), (468, 185), (107, 125).
        func onTheLabel(_ codes: [ScannedCode]) -> Bool {
            let label = [Point(x: 50, y: 52), Point(x: 427, y: 103), Point(x: 468, y: 185), Point(x: 107, y: 125)]
            return codes.allSatisfy { code in
                code.type == .pdf417 && code.corners.count == 4
                    && zip(code.corners, label).allSatisfy { abs($0.x - $1.x) <= 6 && abs($0.y - $1.y) <= 6 }
            }
        }
        let codes = reader.read(image, region: whole, known: [], deadline: .max)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(onTheLabel(codes), "\(codes.map(\.corners))")
        let part = (x: 20, y: 30, width: 480, height: 190)
        let inPart = reader.read(image, region: part, known: [], deadline: .max)
        #expect(inPart.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(onTheLabel(inPart), "\(inPart.map(\.corners))")
        // Asked for matrix symbols only, zxing-cpp is not asked for PDF417 failures.
        #expect(ZXingScanner(types: [.qr, .dataMatrix]).undecoded(plane: image.baseAddress, width: image.width, height: image.height,
                                                                  bytesPerRow: image.bytesPerRow).places.isEmpty)
    }

    /// A DataMatrix of 52 x 52 modules (four regions, two Reed-Solomon blocks) under glare
    /// (Tests/Fixtures/datamatrix-glare.png), and a version 7 QR code (five blocks) under a logo
    /// over its middle (qr-logo.png): zxing-cpp finds each but takes the covered modules for
    /// guesses, too many to decode, and no copy of its place reads it. Erased by their gray levels,
    /// they are not too many: the exact text, once, where the symbol is (the picture's middle),
    /// from the plane and from a region holding it.
    @Test(arguments: [
        ("datamatrix-glare.png", MetadataObjectType.dataMatrix,
         "Lookout DataMatrix of many regions: " + (0..<24).map { String(format: "part-%03d", $0) }.joined(separator: " ")),
        ("qr-logo.png", MetadataObjectType.qr, "https://example.com/lookout/logo?code=QR-restored-with-erasures"),
    ])
    func aCoveredSymbolIsDecodedWithErasures(fixture: String, type: MetadataObjectType, text: String) throws {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        let centre = Point(x: Double(image.width) / 2, y: Double(image.height) / 2)
        let scanner = ZXingScanner(types: [type])
        #expect(scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).isEmpty,
                "zxing-cpp reads it as it is: the test no longer tests a symbol it cannot decode")
        let found = scanner.undecoded(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
        #expect(found.places.isEmpty, "\(found.places)")
        #expect(found.restored.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(found.restored.allSatisfy { $0.type == type && $0.corners.count == 4 && Rect.enclosing($0.corners).contains(centre) },
                "\(found.restored.map(\.corners))")

        let reader = try #require(UndecodedSymbolReader(types: [type, .pdf417]))
        let codes = reader.read(image, region: (x: 0, y: 0, width: image.width, height: image.height), known: [], deadline: .max)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        let part = (x: 30, y: 20, width: image.width - 50, height: image.height - 40)
        let inPart = reader.read(image, region: part, known: [], deadline: .max)
        #expect(inPart.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(inPart.allSatisfy { Rect.enclosing($0.corners).contains(centre) }, "\(inPart.map(\.corners))")
        // Asked for the other type alone, zxing-cpp does not restore it.
        let other: MetadataObjectType = type == .qr ? .dataMatrix : .qr
        #expect(ZXingScanner(types: [other]).undecoded(plane: image.baseAddress, width: image.width, height: image.height,
                                                       bytesPerRow: image.bytesPerRow).restored.isEmpty)
        // As `lookout scan` reads the picture: once.
        let still = StillCodeReader(types: [type], zbar: nil, processors: 1)
        let read = still.read(image, region: (x: 0, y: 0, width: image.width, height: image.height), budget: 600_000,
                              planeIsHalfSize: false)
        #expect(read.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// lk_zx_rectify's contract, as the reader uses it: the size alone first, then the copy into
    /// exactly that many bytes, its homography taking the copy's corners of the quad back onto the
    /// quad and each copied pixel from its place in the image; bad quads and margins give -1.
    @Test func aQuadIsStoodSquareIntoTheSizeItAsksFor() {
        let width = 100, height = 80
        // Each pixel's value tells where it is: x + y.
        let image = (0..<height).flatMap { y in (0..<width).map { x in UInt8(x + y) } }
        let quad: [Float] = [10, 10, 90, 20, 85, 70, 15, 60]
        let margin: Float = 0.1
        var copyWidth: Int32 = 0, copyHeight: Int32 = 0
        var homography = [Double](repeating: 7, count: 8)
        #expect(lk_zx_rectify(image, Int32(width), Int32(height), Int32(width), quad, margin, nil, 0, &copyWidth, &copyHeight,
                              &homography) == 1)
        #expect(copyWidth >= 80 && copyHeight >= 50, "\(copyWidth) x \(copyHeight)")
        #expect(homography == [Double](repeating: 7, count: 8), "the size alone writes no homography")
        var copy = [UInt8](repeating: 0, count: Int(copyWidth * copyHeight) - 1)
        #expect(lk_zx_rectify(image, Int32(width), Int32(height), Int32(width), quad, margin, &copy, Int32(copy.count),
                              &copyWidth, &copyHeight, &homography) == 1)
        copy.append(0)
        #expect(lk_zx_rectify(image, Int32(width), Int32(height), Int32(width), quad, margin, &copy, Int32(copy.count),
                              &copyWidth, &copyHeight, &homography) == 0)
        let region = (x: 0, y: 0, width: width, height: height)
        let inset = (x: Double(margin) * Double(copyWidth), y: Double(margin) * Double(copyHeight))
        let copyCorners = [Point(x: inset.x, y: inset.y), Point(x: Double(copyWidth) - inset.x, y: inset.y),
                           Point(x: Double(copyWidth) - inset.x, y: Double(copyHeight) - inset.y),
                           Point(x: inset.x, y: Double(copyHeight) - inset.y)]
        for (k, corner) in copyCorners.enumerated() {
            let back = UndecodedSymbolReader.source(of: corner, through: homography, in: region)
            #expect(back.map { abs($0.x - Double(quad[2 * k])) < 0.01 && abs($0.y - Double(quad[2 * k + 1])) < 0.01 } == true,
                    "corner \(k): \(String(describing: back))")
        }
        for (x, y) in [(Int(inset.x), Int(inset.y)), (Int(copyWidth) / 2, Int(copyHeight) / 2), (Int(copyWidth) - 12, Int(copyHeight) - 9)] {
            let at = UndecodedSymbolReader.source(of: Point(x: Double(x), y: Double(y)), through: homography, in: region)
            let expected = at.map { $0.x + $0.y } ?? -100
            #expect(abs(Double(copy[y * Int(copyWidth) + x]) - expected) <= 1.5, "copy (\(x), \(y)) from \(String(describing: at))")
        }
        // A side too short, a corner not finite, a margin of half the copy: no copy.
        for (bad, badMargin): ([Float], Float) in [([10, 10, 20, 10, 20, 70, 10, 70], margin), ([10, 10, .nan, 20, 85, 70, 15, 60], margin),
                                                   ([10, 10, .infinity, 20, 85, 70, 15, 60], margin), (quad, 0.5), (quad, -0.1)] {
            #expect(lk_zx_rectify(image, Int32(width), Int32(height), Int32(width), bad, badMargin, &copy, Int32(copy.count),
                                  &copyWidth, &copyHeight, &homography) == -1, "\(bad) \(badMargin)")
        }
        // A homography that sends a point to infinity gives no corner.
        let horizon = [1, 0, 0, 0, 1, 0, -0.01, 0] as [Double]
        #expect(UndecodedSymbolReader.source(of: Point(x: 100, y: 5), through: horizon, in: region) == nil)
    }
}
