import CPlanes
import Foundation
import Testing
@testable import Lookout

/// EAN-13 symbols read from the grey levels of their bars (`EAN13ProfileReader`,
/// `lk_ean13_from_profiles`): bars blurred past what a threshold tells apart.
@Suite("EAN-13 from its bars' grey levels")
struct EAN13ProfileReaderTests {
    static let outOfFocusText = "7612345678900"

    /// An EAN-13 of 3.2 px modules out of focus by 0.8 of a module, upside down
    /// (Tests/Fixtures/ean13-out-of-focus.png): no first look reads it, nor does any copy of its
    /// place or rung of the deconvolution ladder vouch for it; both halves of its bars read it
    /// alike from their grey levels, so `scan` reports it, once, with its corners in reading order.
    @Test func anOutOfFocusSymbolIsReadFromItsBarsGreyLevels() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("ean13-out-of-focus.png", types: [.ean13])
        let place = try LinearPlacesTests.densestPlace(in: image)
        let (copies, rungs) = reader.lanes[0].withLock { lane in
            (LinearPlacesTests.copyTexts(&lane, image: image, place: place),
             StillCodeReader.deconvolutions.map {
                 lane.readDeconvolved(image, region: place, blur: $0.blur, noise: $0.noise, enlarged: $0.enlarged)
                     .map { String(decoding: $0.payload, as: UTF8.self) }
             })
        }
        #expect((copies + rungs).filter { $0.contains(Self.outOfFocusText) }.count < 2,
                "copies or rungs vouch for the symbol: the test no longer tests its grey levels \(copies) \(rungs)")

        let halves = EAN13ProfileReader.halves(in: image, region: place, wanted: [.ean13])
        #expect(halves.map { $0.map { String(decoding: $0.payload, as: UTF8.self) } } == [[Self.outOfFocusText], [Self.outOfFocusText]])
        #expect(halves.joined().allSatisfy { $0.type == .ean13 && $0.decoder == .lookout })

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.outOfFocusText])
        #expect(codes.allSatisfy { !$0.needsConfirmation })
        // Upside down, the symbol starts at the right: its first corners lie right of its last.
        // The bars lie about (150..480, 140..340) of the picture.
        let corners = try #require(codes.first?.corners)
        #expect(corners.count == 4 && corners[0].x > corners[3].x + 200 && corners[1].x > corners[2].x + 200, "\(corners)")
        #expect(corners.allSatisfy { $0.x > 130 && $0.x < 500 && $0.y > 120 && $0.y < 360 }, "\(corners)")

        // A budget no loaded machine runs out of.
        let objects = try jsonObjects(try lookout(["scan", "--types", "ean13", "--code-budget", "60000",
                                                   Fixtures.path("ean13-out-of-focus.png")]))
        #expect(objects.map { $0["value"] as? String } == [Self.outOfFocusText])
        #expect(objects.first?["decoder"] as? String == "lookout")
        #expect(objects.first?["aim_id"] as? String == "]E0")
    }

    /// The symbol the right way up, of another first digit (Tests/Fixtures/ean13-defocused.png,
    /// "5...", turned by 8 degrees): both halves read it, its first corners at the left.
    @Test func aSymbolTheRightWayUpIsReadFromItsStart() throws {
        let image = try StillImage.load(path: Fixtures.path("ean13-defocused.png"))
        let place = try LinearPlacesTests.densestPlace(in: image)
        let halves = EAN13ProfileReader.halves(in: image, region: place, wanted: [.ean13, .upcA])
        #expect(halves.map { $0.map { String(decoding: $0.payload, as: UTF8.self) } } == [["5852188715482"], ["5852188715482"]])
        let corners = try #require(halves.first?.first?.corners)
        #expect(corners[3].x > corners[0].x + 200 && corners[2].x > corners[1].x + 200, "\(corners)")
    }

    /// An EAN-13 of 1.2 px modules on a grey label turned by 215 degrees
    /// (Tests/Fixtures/ean13-small-modules.png): central differences barely see bars that fine,
    /// and the label's edges and digits lean the gradients' direction by degrees, smearing the
    /// rows' mean. Turned upright by the direction that makes that mean sharpest, both halves read
    /// it, and `read` reports it where no first look does.
    @Test func barsOfModulesNearAPixelAreTurnedUprightByTheirSharpestMean() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("ean13-small-modules.png", types: [.ean13])
        let place = try LinearPlacesTests.densestPlace(in: image)
        let halves = EAN13ProfileReader.halves(in: image, region: place, wanted: [.ean13])
        #expect(halves.map { $0.map { String(decoding: $0.payload, as: UTF8.self) } } == [["5901234123457"], ["5901234123457"]])
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["5901234123457"])
    }

    /// An EAN-13 whose bars and spaces are one or two whole pixels wide (1.3 px modules scaled by
    /// the nearest pixel, as a printer lays dots; Tests/Fixtures/ean13-whole-pixels.png): a model of
    /// even modules explains only about 0.82 of its grey levels, but at a blur of under a module,
    /// where nothing without an EAN-13 explained more than 0.57, so both halves give its digits.
    @Test func barsOfWholePixelsAreReadAtTheShareASharpModelExplains() throws {
        let image = try StillImage.load(path: Fixtures.path("ean13-whole-pixels.png"))
        let place = try LinearPlacesTests.densestPlace(in: image)
        var bands = [lk_ean13_band](repeating: lk_ean13_band(), count: 2), corners = [Float](repeating: 0, count: 8)
        let result = lk_ean13_from_profiles(image.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bytesPerRow),
                                            Int32(place.x), Int32(place.y), Int32(place.width), Int32(place.height), &bands, &corners)
        #expect(result == 1)
        let digits = bands.map { band in withUnsafeBytes(of: band.digits) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
        #expect(digits == ["4006381333931", "4006381333931"])
        // Else the fixture no longer shows what a sharp model of even modules leaves unexplained.
        #expect(bands.allSatisfy { $0.explained >= 0.78 && $0.explained < 0.85 && $0.sigma < 0.7 }, "\(bands)")
    }

    /// An EAN-13 of 1.19 px modules out of focus (Tests/Fixtures/ean13-enlarged-misread.jpg,
    /// picture 180 of scripts/corpus.d/small_ean.py): its place's copies enlarged at sigma 2 and at
    /// sigma 3 read the same wrong digits, and its bars' grey levels read it right in both halves.
    /// The copies of one look vouch once, so the grey levels are asked too; both halves read alike
    /// at modules near a pixel, so their digits stand and the copies' do not.
    @Test func copiesOfOneLookReadingWrongDigitsAlikeGiveWayToTheBarsGreyLevels() throws {
        let (right, wrong) = ("3271597610249", "9211191610249")
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("ean13-enlarged-misread.jpg", types: [.ean13])
        let place = try LinearPlacesTests.densestPlace(in: image)
        let copies = reader.lanes[0].withLock { LinearPlacesTests.copyTexts(&$0, image: image, place: place) }
        #expect(copies.count == 3 && copies[1] == [wrong] && copies[2] == [wrong] && !copies[0].contains(right),
                "the enlarged copies no longer read the wrong digits alike: the test no longer tests them \(copies)")
        let halves = EAN13ProfileReader.halves(in: image, region: place, wanted: [.ean13])
        #expect(halves.map { $0.map { String(decoding: $0.payload, as: UTF8.self) } } == [[right], [right]])

        let reads = reader.lanes[0].withLock { lane in
            StillCodeReader.linearPlaceCopies.map { lane.readCopy($0.look, of: image, region: place, sigma: $0.sigma, also: .turned).joined() }
        }
        let misread = try #require(reads[1].first)
        #expect(StillCodeReader.vouching(for: misread, by: reads.map { Array($0) }) == .twice)
        #expect(StillCodeReader.vouching(for: misread, by: StillCodeReader.byLook(reads.map { Array($0) })) == .once)

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [right])
        #expect(codes.map(\.decoder) == [.lookout])
    }

    /// A read judged by the halves: it stands when no half reads its symbol otherwise (nor when
    /// they read another place); both halves reading other digits alike replace it, as the wanted
    /// type; one half alone, or digits of no wanted type, drop it.
    @Test func aReadStandsIsReplacedOrIsDroppedByWhatTheHalvesRead() {
        func code(_ type: MetadataObjectType, _ text: String, at x: Double, decoder: CodeDecoder) -> ScannedCode {
            ScannedCode(type: type, payload: Array(text.utf8),
                        corners: [Point(x: x, y: 10), Point(x: x + 120, y: 10), Point(x: x + 120, y: 80), Point(x: x, y: 80)], decoder: decoder)
        }
        let read = code(.upcA, "864307073507", at: 10, decoder: .zxing)
        let digits = Array("0864307073507".utf8)
        let right = code(.ean13, "0865307973507", at: 10, decoder: .lookout), same = code(.ean13, "0864307073507", at: 10, decoder: .lookout)
        let elsewhere = code(.ean13, "4006381333931", at: 400, decoder: .lookout)
        let both: Set<MetadataObjectType> = [.ean13, .upcA]
        func text(_ judged: ScannedCode?) -> String? { judged.map { String(decoding: $0.payload, as: UTF8.self) } }

        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[], []], wanted: both)?.decoder == .zxing)
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[same], [same]], wanted: both)?.decoder == .zxing)
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[elsewhere], [elsewhere]], wanted: both)?.decoder == .zxing)
        let replaced = EAN13ProfileReader.judged(read, digits: digits, by: [[right], [right]], wanted: both)
        #expect(text(replaced) == "865307973507" && replaced?.type == .upcA && replaced?.decoder == .lookout)
        #expect(text(EAN13ProfileReader.judged(read, digits: digits, by: [[right], [right]], wanted: [.ean13])) == "0865307973507")
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[right], []], wanted: both) == nil)
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[], [right]], wanted: both) == nil)
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[right], [same]], wanted: both) == nil)
        let notUPC = code(.ean13, "4006381333931", at: 10, decoder: .lookout)
        #expect(EAN13ProfileReader.judged(read, digits: digits, by: [[notUPC], [notUPC]], wanted: [.upcA]) == nil)
    }

    /// The halves stand against the copies only when both read the same digits, at modules under
    /// `checkedModule` (the bars' length over 95).
    @Test func halvesStandAgainstCopiesOnlyAlikeAndOfSmallModules() {
        func half(_ text: String, length: Double) -> [ScannedCode] {
            [ScannedCode(type: .ean13, payload: Array(text.utf8),
                         corners: [Point(x: 10, y: 10), Point(x: 10, y: 60), Point(x: 10 + length, y: 60), Point(x: 10 + length, y: 10)],
                         decoder: .lookout)]
        }
        let small = 95 * (EAN13ProfileReader.checkedModule - 0.1), large = 95 * (EAN13ProfileReader.checkedModule + 0.1)
        #expect(EAN13ProfileReader.agreedOnSmallModules([half(Self.outOfFocusText, length: small), half(Self.outOfFocusText, length: small)])?
            .payload == Array(Self.outOfFocusText.utf8))
        #expect(EAN13ProfileReader.agreedOnSmallModules([half(Self.outOfFocusText, length: large), half(Self.outOfFocusText, length: large)]) == nil)
        #expect(EAN13ProfileReader.agreedOnSmallModules([half(Self.outOfFocusText, length: small), half("4006381333931", length: small)]) == nil)
        #expect(EAN13ProfileReader.agreedOnSmallModules([half(Self.outOfFocusText, length: small), []]) == nil)
        #expect(EAN13ProfileReader.agreedOnSmallModules([[], half(Self.outOfFocusText, length: small)]) == nil)
    }

    /// A UPC-A of 1.3 px modules, sharp (Tests/Fixtures/ean13-small-misread.jpg): zxing-cpp's
    /// first look reads other digits that pass the check digit, and its bars' grey levels read
    /// the symbol right, in both halves alike. The first look's read is replaced by the halves',
    /// the right digits stand as read, and `scan` reports the right digits alone. (ZBar reads the
    /// symbol right, weakly, and the copies do not give the misread: the merged first looks
    /// drop it already.)
    @Test func aFirstLookMisreadOfSmallModulesIsReplacedByTheBarsReading() throws {
        let (right, wrong) = ("865307973507", "864307073507")
        let image = try StillImage.load(path: Fixtures.path("ean13-small-misread.jpg"))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let types: Set<MetadataObjectType> = [.ean13, .upcA]
        let reader = StillCodeReader(types: types, zbar: BarcodeScanner(types: types), processors: 1)
        let picture = ZXingScanner(types: types).scan(plane: image.baseAddress, width: image.width, height: image.height,
                                                      bytesPerRow: image.bytesPerRow)
        let misread = try #require(picture.first { $0.payload == Array(wrong.utf8) },
                                   "zxing-cpp no longer misreads it: the test no longer tests the check \(picture)")
        #expect(!reader.firstLooks(image, region: whole, planeIsHalfSize: false).contains { $0.payload == Array(wrong.utf8) })
        #expect(misread.type == .upcA && misread.decoder == .zxing)
        let checked = EAN13ProfileReader.checked(misread, in: image, region: whole, wanted: types)
        #expect(checked.map { String(decoding: $0.payload, as: UTF8.self) } == right)
        #expect(checked?.type == .upcA && checked?.decoder == .lookout && checked?.symbologyIdentifier == "]E0")
        // The right digits stand as they were read; an EAN-13 only wanted, the halves' read is not a UPC-A.
        var corrected = misread
        corrected.payload = Array(right.utf8)
        #expect(EAN13ProfileReader.checked(corrected, in: image, region: whole, wanted: types)?.decoder == .zxing)
        #expect(EAN13ProfileReader.checked(misread, in: image, region: whole, wanted: [.ean13])?.type == .ean13)

        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [right])
    }

    /// Stripes of one width and random bars between quiet zones are matched to some symbol, but
    /// the model explains too little of them for either half to give digits; a flat plane shows no
    /// bars at all; and bad arguments are refused with the bands emptied.
    @Test func stripesRandomBarsAndBadArgumentsGiveNoDigits() {
        let (width, height) = (400, 200)
        var stripes = [UInt8](repeating: 200, count: width * height)
        var random = stripes
        // Bars and spaces of 2 to 8 px in an irregular order, alternately dark and light.
        let runs = [2, 5, 3, 8, 4, 2, 6, 3, 7, 2, 4, 5, 3, 6, 2, 8, 5, 3, 2, 7]
        var (x, index) = (100, 0)
        while x < 300 {
            let end = min(300, x + runs[index % runs.count])
            if index % 2 == 0 { for column in x..<end { for row in 40..<160 { random[row * width + column] = 40 } } }
            (x, index) = (end, index + 1)
        }
        for column in 100..<300 where (column / 3) % 2 == 0 { for row in 40..<160 { stripes[row * width + column] = 40 } }
        let flat = [UInt8](repeating: 128, count: width * height)
        for (name, plane, matched) in [("stripes", stripes, Int32(1)), ("random bars", random, 1), ("flat", flat, 0)] {
            let (result, bands) = Self.read(plane, width: width, height: height, place: (150, 60, 100, 80))
            #expect(result == matched, "\(name)")
            #expect(bands.allSatisfy { $0.isEmpty }, "\(name): \(bands)")
        }
        // A place outside the plane, too small, a short stride or no plane: refused.
        for place in [(350, 60, 100, 80), (150, 60, 8, 80), (-1, 60, 100, 80), (150, 190, 100, 20)] {
            #expect(Self.read(flat, width: width, height: height, place: place).result == -1, "\(place)")
        }
        #expect(Self.read(flat, width: width, height: height, stride: width - 1, place: (150, 60, 100, 80)).result == -1)
        var bands = [lk_ean13_band](repeating: lk_ean13_band(), count: 2), corners = [Float](repeating: 1, count: 8)
        #expect(lk_ean13_from_profiles(nil, 400, 200, 400, 150, 60, 100, 80, &bands, &corners) == -1)
        #expect(corners.allSatisfy { $0 == 0 })
    }

    /// The type an EAN-13 is reported as: UPC-A without its leading 0 when asked for, else EAN-13,
    /// else ISBN as asked, else nothing.
    @Test func anEAN13IsReportedAsTheTypeAskedFor() {
        func reported(_ text: String, _ types: Set<MetadataObjectType>) -> (MetadataObjectType?, String) {
            var payload = Array(text.utf8)
            let type = ZXingScanner.type(ofEAN13: &payload, wanted: types)
            return (type, String(decoding: payload, as: UTF8.self))
        }
        #expect(reported("0012345678905", [.upcA, .ean13]) == (.upcA, "012345678905"))
        #expect(reported("0012345678905", [.ean13]) == (.ean13, "0012345678905"))
        #expect(reported("7612345678900", [.upcA, .ean13]) == (.ean13, "7612345678900"))
        #expect(reported("9780306406157", [.isbn13]) == (.isbn13, "9780306406157"))
        #expect(reported("7612345678900", [.ean8]) == (nil, "7612345678900"))
        // Books as ZBar reports them: ISBN-13 first, then ISBN-10 (its own check digit, X for 10),
        // then EAN-13; 979 has no ISBN-10, and a code that is not a book's is no ISBN.
        #expect(reported("9780306406157", [.isbn10]) == (.isbn10, "0306406152"))
        #expect(reported("9780306400094", [.isbn10, .ean13]) == (.isbn10, "030640009X"))
        #expect(reported("9780306406157", [.isbn10, .isbn13, .ean13]) == (.isbn13, "9780306406157"))
        #expect(reported("9780306406157", [.isbn13, .ean13]) == (.isbn13, "9780306406157"))
        #expect(reported("9791234567896", [.isbn10, .ean13]) == (.ean13, "9791234567896"))
        #expect(reported("9791234567896", [.isbn10, .isbn13]) == (.isbn13, "9791234567896"))
        #expect(reported("7612345678900", [.isbn10, .isbn13]) == (nil, "7612345678900"))
    }

    /// An ISBN-10 read stands for its book's EAN-13 (978, 9 digits, the EAN check digit), and is
    /// judged by the bars' grey levels as an EAN-13 read is; replaced, it stays an ISBN-10.
    @Test func anISBN10ReadIsJudgedAsItsBooksEAN13() {
        let corners = [Point(x: 10, y: 10), Point(x: 130, y: 10), Point(x: 130, y: 80), Point(x: 10, y: 80)]
        let read = ScannedCode(type: .isbn10, payload: Array("0306406152".utf8), corners: corners, decoder: .zbar)
        let digits = EAN13ProfileReader.thirteenDigits(of: read)
        #expect(digits == Array("9780306406157".utf8))
        func half(_ text: String) -> [ScannedCode] { [ScannedCode(type: .ean13, payload: Array(text.utf8), corners: corners, decoder: .lookout)] }
        let same = EAN13ProfileReader.judged(read, digits: digits ?? [], by: [half("9780306406157"), half("9780306406157")], wanted: [.isbn10])
        #expect(same?.decoder == .zbar && same?.payload == read.payload)
        let replaced = EAN13ProfileReader.judged(read, digits: digits ?? [], by: [half("9780306406164"), half("9780306406164")], wanted: [.isbn10])
        #expect(replaced?.type == .isbn10 && replaced?.payload == Array("0306406160".utf8) && replaced?.decoder == .lookout)
        #expect(EAN13ProfileReader.judged(read, digits: digits ?? [], by: [half("9780306406164"), []], wanted: [.isbn10]) == nil)
    }

    static func read(_ plane: [UInt8], width: Int, height: Int, stride: Int? = nil,
                     place: (Int, Int, Int, Int)) -> (result: Int32, bands: [String]) {
        var bands = [lk_ean13_band](repeating: lk_ean13_band(), count: 2), corners = [Float](repeating: 0, count: 8)
        let result = plane.withUnsafeBufferPointer {
            lk_ean13_from_profiles($0.baseAddress, Int32(width), Int32(height), Int32(stride ?? width), Int32(place.0), Int32(place.1),
                                   Int32(place.2), Int32(place.3), &bands, &corners)
        }
        return (result, bands.map { band in withUnsafeBytes(of: band.digits) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } })
    }
}
