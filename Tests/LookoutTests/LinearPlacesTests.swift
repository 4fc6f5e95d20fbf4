import CZXing
import Testing
@testable import Lookout

/// EAN and UPC symbols read where a still's rows of bars are (`StillCodeReader.linearPlaces`).
@Suite("linear places")
struct LinearPlacesTests {
    static let leaningText = "1677114453597"

    /// A clean EAN-13 symbol of 1.5 px modules leaning by 38 degrees, cropped from a picture of
    /// the development corpus (Tests/Fixtures/ean13-leaning-small.png): no first look reads it;
    /// its place, enlarged twice, sharpened and turned upright, reads it in two copies alike, so
    /// it stands, with its text and its corners on the symbol.
    @Test func aSmallLeaningSymbolIsReadInItsPlace() throws {
        let image = try StillImage.load(path: Fixtures.path("ean13-leaning-small.png"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        for processors in [1, 2] {
            let reader = StillCodeReader(types: [.ean13], zbar: BarcodeScanner(types: [.ean13]), processors: processors)
            #expect(reader.read(image, region: whole, budget: 0, planeIsHalfSize: false).isEmpty,
                    "the first looks read the symbol: the test no longer tests its place")
            let places = reader.linearPlaces(image, region: whole, known: [], deadline: .max)
            #expect(places.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.leaningText])
            #expect(places.allSatisfy { !$0.needsConfirmation }, "two copies read it alike: it needs no confirmation")
            // A budget no loaded machine runs out of.
            let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.leaningText])
            let box = Rect.enclosing(codes.first?.corners ?? [])
            // The symbol lies about (130..400, 95..350) of the crop.
            #expect(box.midX > 130 && box.midX < 400 && box.midY > 95 && box.midY < 350, "\(box)")
        }
        let objects = try jsonObjects(try lookout(["scan", "--types", "ean13", Fixtures.path("ean13-leaning-small.png")]))
        #expect(objects.map { $0["value"] as? String } == [Self.leaningText])
        #expect(objects.first?["aim_id"] as? String == "]E0")
    }

    /// A place of a code read already is not read again, and a picture of coins (rows of edges,
    /// no symbol) gives no symbol.
    @Test func knownCodesAndCodeFreePlacesGiveNothing() throws {
        let image = try StillImage.load(path: Fixtures.path("ean13-leaning-small.png"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let reader = StillCodeReader(types: [.ean13], zbar: nil, processors: 1)
        let found = reader.linearPlaces(image, region: whole, known: [], deadline: .max)
        #expect(found.count == 1)
        #expect(reader.linearPlaces(image, region: whole, known: found, deadline: .max).isEmpty)

        let coins = try StillImage.load(path: Fixtures.path("noface-coins.png"))
        let all = (x: 0, y: 0, width: coins.width, height: coins.height)
        #expect(reader.linearPlaces(coins, region: all, known: [], deadline: .max).isEmpty)
    }

    /// A place grows by a tenth of its size each way (an EAN symbol's quiet zone), not beyond
    /// the region, and is given in the plane's pixels.
    @Test func aPlaceGrowsByItsQuietZoneWithinTheRegion() {
        let region = (x: 100, y: 50, width: 400, height: 300)
        let inside = StillCodeReader.grown(lk_zx_region(x: 100, y: 100, width: 200, height: 100, shrink: 1), within: region)
        #expect(inside == (x: 180, y: 140, width: 240, height: 120))
        let atEdge = StillCodeReader.grown(lk_zx_region(x: 0, y: 250, width: 400, height: 50, shrink: 1), within: region)
        #expect(atEdge == (x: 100, y: 295, width: 400, height: 55))
    }
}
