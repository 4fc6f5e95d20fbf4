import COpenCV
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

    /// An EAN-13 out of focus (Tests/Fixtures/ean13-defocused.png: 3.2 px modules blurred by a
    /// Gaussian of sigma 2): in the densest place of rows of bars, zxing-cpp reads nothing as it
    /// is, and the sharpened and enlarged copies do not vouch for it (one reads it at most); a
    /// copy deconvolved by a blur of the ladder does, so scan reports it.
    @Test func aDefocusedSymbolIsReadDeconvolvedInItsPlace() throws {
        let (image, whole, reader) = try Self.unreadByFirstLooks("ean13-defocused.png", types: [.ean13])
        let text = "5852188715482"

        let place = try Self.densestPlace(in: image)
        let (asItIs, copies, rungs) = reader.lanes[0].withLock { lane in
            let region = lk_zx_region(x: Int32(place.x), y: Int32(place.y), width: Int32(place.width), height: Int32(place.height), shrink: 1)
            return (lane.zxing.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                    regions: [region], budget: 0),
                    Self.copyTexts(&lane, image: image, place: place),
                    StillCodeReader.deconvolutions.map {
                        lane.readDeconvolved(image, region: place, blur: $0.blur, noise: $0.noise).map { String(decoding: $0.payload, as: UTF8.self) }
                    })
        }
        #expect(asItIs.isEmpty)
        // The copies alone do not vouch for it (one reads it at most); with the rungs, two do.
        let copiesReading = copies.filter { $0.contains(text) }.count, rungsReading = rungs.filter { $0.contains(text) }.count
        #expect(copiesReading < 2, "the sharpened and enlarged copies read the symbol: the test no longer tests the deconvolution")
        #expect(rungsReading >= 1 && copiesReading + rungsReading >= 2, "copies \(copies), rungs \(rungs)")
        #expect((copies + rungs).allSatisfy { $0.allSatisfy { $0 == text } }, "copies \(copies), rungs \(rungs)")

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// An EAN-13 of 1.65 px modules blurred by about a pixel (Tests/Fixtures/ean13-small-soft.png,
    /// from a code photograph): no copy of its place reads it, nor a rung deconvolved at its own
    /// size; deconvolved by a blur of 1 and of 1.25 px and then enlarged, it is read alike twice,
    /// so it stands.
    @Test func aSmallSoftSymbolIsReadDeconvolvedAndEnlarged() throws {
        let (image, whole, reader) = try Self.unreadByFirstLooks("ean13-small-soft.png", types: [.ean13])
        let text = "5464889530280"
        let place = try Self.densestPlace(in: image)
        let (copies, rungs) = reader.lanes[0].withLock { lane in
            (Self.copyTexts(&lane, image: image, place: place),
             StillCodeReader.deconvolutions.map {
                 (enlarged: $0.enlarged,
                  read: lane.readDeconvolved(image, region: place, blur: $0.blur, noise: $0.noise, enlarged: $0.enlarged)
                     .map { String(decoding: $0.payload, as: UTF8.self) })
             })
        }
        #expect(copies.allSatisfy { $0.isEmpty }, "a copy reads the symbol: the test no longer tests the deconvolution \(copies)")
        #expect(rungs.filter { !$0.enlarged }.allSatisfy { $0.read.isEmpty }, "\(rungs)")
        #expect(rungs.filter { $0.enlarged && $0.read == [text] }.count >= 2, "\(rungs)")

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(codes.allSatisfy { !$0.needsConfirmation })
    }

    /// A light EAN-13 label on a dark can (Tests/Fixtures/ean13-dark-can.png, from a code
    /// photograph): no copy of its place reads it, and its flattened copy alone would not stand;
    /// ZBar reads the flattened copy alike on enough scan lines, so it does.
    @Test func aLabelOnADarkCanIsReadFlattenedByBothDecoders() throws {
        let (image, whole, reader) = try Self.unreadByFirstLooks("ean13-dark-can.png", types: [.ean13])
        let text = "0009016473198"
        let place = try Self.densestPlace(in: image)
        let zbar = try #require(reader.placeZBar)
        let (copies, flattened, flattenedByZBar) = reader.lanes[0].withLock { lane in
            (Self.copyTexts(&lane, image: image, place: place),
             lane.readCopy(.flattened, of: image, region: place).joined().map { String(decoding: $0.payload, as: UTF8.self) },
             lane.readFlattened(by: zbar, of: image, region: place))
        }
        #expect(copies.allSatisfy { $0.isEmpty }, "a copy reads the symbol: the test no longer tests the flattened place \(copies)")
        #expect(flattened == [text])
        #expect(flattenedByZBar.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(flattenedByZBar.allSatisfy { $0.decoder == .zbar && $0.scanLines >= ScannedCode.confidentScanLines })

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        #expect(codes.allSatisfy { !$0.needsConfirmation })
        // On the label: its bars lie about (90..360, 30..330) of the crop.
        let box = Rect.enclosing(codes.first?.corners ?? [])
        #expect(box.midX > 90 && box.midX < 360 && box.midY > 30 && box.midY < 330, "\(box)")
    }

    /// The densest place of rows of bars in the image, grown by its quiet zone.
    static func densestPlace(in image: PixelBuffer) throws -> PlaneRegion {
        let first = try #require(ZXingFrameReader.places(LK_ZX_PLACES_ROWS, in: image.baseAddress, width: image.width,
                                                         height: image.height, bytesPerRow: image.bytesPerRow).first)
        return StillCodeReader.grown(first, within: (x: 0, y: 0, width: image.width, height: image.height))
    }

    /// The texts each of the place's copies (`linearPlaceCopies`) reads there.
    static func copyTexts(_ lane: inout StillCodeReader.Lane, image: PixelBuffer, place: PlaneRegion) -> [[String]] {
        StillCodeReader.linearPlaceCopies.map {
            lane.readCopy($0.look, of: image, region: place, sigma: $0.sigma, also: .turned).joined().map { String(decoding: $0.payload, as: UTF8.self) }
        }
    }

    /// A fixture, its whole region and a one-lane reader of `types` whose first looks read nothing
    /// in it (else the test no longer tests what comes after them).
    static func unreadByFirstLooks(_ fixture: String, types: Set<MetadataObjectType>) throws -> (PixelBuffer, PlaneRegion, StillCodeReader) {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let reader = StillCodeReader(types: types, zbar: BarcodeScanner(types: types), processors: 1)
        #expect(reader.read(image, region: whole, budget: 0, planeIsHalfSize: false).isEmpty,
                "the first looks read \(fixture): the test no longer tests what comes after them")
        return (image, whole, reader)
    }

    /// Deconvolution refuses what it cannot do, and keeps a plain picture plain.
    @Test func deconvolutionRefusesBadArgumentsAndKeepsAPlainPicturePlain() {
        let (width, height) = (40, 30)
        let plain = [UInt8](repeating: 200, count: width * height)
        var out = [UInt8](repeating: 7, count: width * height)
        let made = plain.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                [lk_deconvolve(source.baseAddress!, Int32(width), Int32(height), Int32(width), 2, 0.01, target.baseAddress!),
                 lk_deconvolve(source.baseAddress!, Int32(width), Int32(height), Int32(width), 0, 0.01, target.baseAddress!),
                 lk_deconvolve(source.baseAddress!, Int32(width), Int32(height), Int32(width), 2, 0, target.baseAddress!),
                 lk_deconvolve(source.baseAddress!, 0, Int32(height), Int32(width), 2, 0.01, target.baseAddress!)]
            }
        }
        #expect(made == [0, -1, -1, -1])
        // A flat picture's one frequency is zero, which the filter keeps: 200 / (1 + 0.01).
        #expect(out.allSatisfy { abs(Int($0) - 198) <= 1 }, "\(Set(out))")
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
        // The same place given in the plane's pixels.
        #expect(StillCodeReader.grown(placeInPlane: (x: 200, y: 150, width: 200, height: 100), within: region) == inside)
    }
}
