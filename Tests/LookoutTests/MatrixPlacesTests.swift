import Testing
@testable import Lookout

/// Aztec and DataMatrix symbols read deconvolved where a still looks like a matrix symbol
/// (`StillCodeReader.deconvolvedMatrixPlaces`).
@Suite("matrix places deconvolved")
struct MatrixPlacesTests {
    /// Blurred Aztec symbols cropped from code photographs: modules of 2.1 px smeared by motion
    /// (Tests/Fixtures/aztec-motion-blurred.png, a GS1 element string) and of 3.9 px out of focus
    /// (aztec-defocused.png, a boarding pass). Neither the first looks nor the windows read them;
    /// a deconvolved place does, once, on the symbol, and not again once it is known.
    @Test(arguments: [
        ("aztec-motion-blurred.png", "01308355169857461002W4H1H\u{1D}17280217"),
        ("aztec-defocused.png", "M1IFRSQ/TNY           EF7POUB OEEJHYAF 6792 269Y001E0346 100"),
    ])
    func aBlurredAztecSymbolIsReadDeconvolvedInItsPlace(fixture: String, text: String) throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks(fixture, types: [.aztec])
        #expect(ZXingFrameReader(types: [.aztec]).readStill(image, budget: 600_000).isEmpty,
                "the windows read \(fixture): the test no longer tests the deconvolved places")
        #expect(reader.unrolledPlaces(image, region: whole, known: [], types: [.aztec], deadline: .max).isEmpty,
                "the unrolled places read \(fixture): the test no longer tests the deconvolved places")
        // Only the types asked for: the Aztec symbol is no DataMatrix one.
        #expect(reader.deconvolvedMatrixPlaces(image, region: whole, known: [], types: [.dataMatrix], deadline: .max).isEmpty)

        let found = reader.deconvolvedMatrixPlaces(image, region: whole, known: [], types: [.aztec], deadline: .max)
        #expect(found.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(reader.deconvolvedMatrixPlaces(image, region: whole, known: found, types: [.aztec], deadline: .max).isEmpty)

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(codes.map(\.type) == [.aztec])
        // The crops hold the symbol in their middle third.
        let box = Rect.enclosing(codes.first?.corners ?? [])
        #expect(abs(box.midX - Double(image.width) / 2) < Double(image.width) / 6
                && abs(box.midY - Double(image.height) / 2) < Double(image.height) / 6, "\(box)")
    }

    /// A picture of coins and one of a QR code give no Aztec or DataMatrix symbol deconvolved.
    @Test(arguments: ["noface-coins.png", "qr-blurred.png"])
    func picturesWithoutAMatrixSymbolGiveNone(fixture: String) throws {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let reader = StillCodeReader(types: [.aztec, .dataMatrix], zbar: nil, processors: 1)
        #expect(reader.deconvolvedMatrixPlaces(image, region: whole, known: [], types: [.aztec, .dataMatrix], deadline: .max).isEmpty)
    }
}
