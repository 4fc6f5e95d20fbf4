import Testing
@testable import Lookout

/// How `lookout scan` makes one report per symbol of its looks' reads (`StillCodeReader.merged`,
/// `ScannedCode.isSameSymbol`).
@Suite("still code merge")
struct StillCodeMergeTests {
    static func code(_ text: String, _ type: MetadataObjectType = .ean13, x: Double, y: Double, width: Double, height: Double) -> ScannedCode {
        ScannedCode(type: type, payload: Array(text.utf8),
                    corners: [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height), Point(x: x, y: y + height)],
                    decoder: .zxing)
    }

    /// A symbol reported as the line one scan crossed and again as a band beside it is one symbol;
    /// the same code a whole symbol away (the next label of a shelf) or a band's height above is
    /// another, and so is other text beside the line.
    @Test func aLinearSymbolReadAsALineAndAsABandIsOne() {
        let line = Self.code("7360135290961", x: 220, y: 315, width: 199, height: 1)
        let band = Self.code("7360135290961", x: 212, y: 243, width: 205, height: 54)
        #expect(line.isSameSymbol(as: band))
        #expect(band.isSameSymbol(as: line))
        let nextLabel = Self.code("7360135290961", x: 440, y: 243, width: 205, height: 54)
        #expect(!band.isSameSymbol(as: nextLabel))
        #expect(!line.isSameSymbol(as: Self.code("4006381333931", x: 212, y: 243, width: 205, height: 54)))
        #expect(!line.isSameSymbol(as: Self.code("7360135290961", .code128, x: 212, y: 243, width: 205, height: 54)))
        // The same code on the label above: a band's height away across, beside it along.
        let labelAbove = Self.code("7360135290961", x: 212, y: 170, width: 205, height: 54)
        #expect(!band.isSameSymbol(as: labelAbove))
        // Turned upright (a vertical symbol): the same rule along its length.
        let upright = Self.code("1353018417940", x: 955, y: 725, width: 146, height: 295)
        #expect(upright.isSameSymbol(as: Self.code("1353018417940", x: 1102, y: 752, width: 22, height: 224)))
        #expect(!upright.isSameSymbol(as: Self.code("1353018417940", x: 1110, y: 725, width: 146, height: 295)))
        // Matrix symbols never overlap one another: two QR codes of one text a few pixels apart are two.
        let qr = Self.code("https://lookout.example/1", .qr, x: 400, y: 100, width: 80, height: 80)
        #expect(!qr.isSameSymbol(as: Self.code("https://lookout.example/1", .qr, x: 400, y: 184, width: 80, height: 80)))
        // A UPC-E symbol's band is taller than it is long: the line along its bottom edge is it.
        let tallBand = Self.code("00064163", .upcE, x: 221, y: 139, width: 58, height: 101)
        #expect(tallBand.isSameSymbol(as: Self.code("00064163", .upcE, x: 221, y: 240.6, width: 56, height: 1)))
        #expect(!tallBand.isSameSymbol(as: Self.code("00064163", .upcE, x: 221, y: 360, width: 56, height: 1)))
        var codes = [line]
        #expect(codes.addNewSymbols([band, nextLabel, labelAbove]) == 2)
    }

    /// A copy's read of a type whose check a sharpened edge can fool (EAN-13) stands when two
    /// copies give it, waits for confirmation when one does, and is dropped when another copy
    /// gives its place other bytes; a QR code of one copy stands; the picture's reads come first.
    @Test func aCopysLinearReadStandsOnlyWhenVouchedFor() {
        let ean = Self.code("4006381333931", x: 100, y: 100, width: 190, height: 60)
        let misread = Self.code("4006381333948", x: 104, y: 102, width: 186, height: 58)
        let qr = Self.code("https://lookout.example/1", .qr, x: 400, y: 100, width: 80, height: 80)
        func looks(sharpened: [[ScannedCode]] = [], flattened: [[ScannedCode]] = [], picture: [ScannedCode] = []) -> [[[ScannedCode]]] {
            var found = [[[ScannedCode]]](repeating: [], count: StillCodeReader.Look.allCases.count)
            found[StillCodeReader.Look.picture.rawValue] = [picture]
            found[StillCodeReader.Look.sharpened.rawValue] = sharpened
            found[StillCodeReader.Look.flattened.rawValue] = flattened
            return found
        }
        let twice = StillCodeReader.merged(looks(sharpened: [[ean], []], flattened: [[ean, qr]]))
        #expect(twice.map(\.payload) == [qr.payload, ean.payload])
        #expect(twice.allSatisfy { !$0.needsConfirmation })

        let once = StillCodeReader.merged(looks(flattened: [[ean]]))
        #expect(once.map(\.payload) == [ean.payload])
        #expect(once.first?.needsConfirmation == true)

        #expect(StillCodeReader.merged(looks(sharpened: [[ean], [misread]], flattened: [[ean]])).isEmpty)

        // The sharpened copy's two thresholds are one copy: its read alone waits for confirmation.
        let oneCopy = StillCodeReader.merged(looks(sharpened: [[ean], [ean]]))
        #expect(oneCopy.map(\.payload) == [ean.payload])
        #expect(oneCopy.first?.needsConfirmation == true)

        // Other linear codes of the copies are not reported, even read twice.
        let code128 = Self.code("LOOKOUT-0042", .code128, x: 100, y: 300, width: 190, height: 60)
        #expect(StillCodeReader.merged(looks(sharpened: [[code128], []], flattened: [[code128]])).isEmpty)

        // The picture's read stands beside a copy that reads nothing of it, not against one that reads it otherwise.
        let pictureFirst = StillCodeReader.merged(looks(sharpened: [[qr]], picture: [ean]))
        #expect(pictureFirst.map(\.payload) == [ean.payload, qr.payload])
        #expect(pictureFirst.allSatisfy { !$0.needsConfirmation })
        #expect(StillCodeReader.merged(looks(sharpened: [[misread]], picture: [ean])).isEmpty)
    }

    /// ZBar and zxing-cpp's read of the picture give one symbol other bytes: the one a copy gives
    /// stands, and nothing when no copy gives either; a read needing confirmation that another
    /// decoder gives alike stands (a weak ZBar read a copy gives; zxing-cpp's UPC-E that ZBar gives).
    @Test func twoDecodersThatDisagreeAreSettledByTheCopies() {
        let right = Self.code("0099837866", .upcE, x: 222, y: 180, width: 69, height: 25)
        var wrong = Self.code("0928318300", .upcE, x: 224, y: 178, width: 67, height: 27)
        wrong.decoder = .zxing
        var zbar = right
        zbar.decoder = .zbar
        zbar.scanLines = 20
        func looks(picture: [ScannedCode], zbar: [ScannedCode], enlarged: [ScannedCode] = []) -> [[[ScannedCode]]] {
            var found = [[[ScannedCode]]](repeating: [], count: StillCodeReader.Look.allCases.count)
            found[StillCodeReader.Look.picture.rawValue] = [picture]
            found[StillCodeReader.Look.zbar.rawValue] = [zbar]
            found[StillCodeReader.Look.enlarged.rawValue] = [enlarged]
            return found
        }
        let settled = StillCodeReader.merged(looks(picture: [wrong], zbar: [zbar], enlarged: [right]))
        #expect(settled.map(\.payload) == [right.payload])
        #expect(settled.first?.decoder == .zbar)
        #expect(StillCodeReader.merged(looks(picture: [wrong], zbar: [zbar])).isEmpty)
        #expect(StillCodeReader.merged(looks(picture: [wrong], zbar: [zbar], enlarged: [wrong])).map(\.payload) == [wrong.payload])

        var weak = zbar
        weak.scanLines = 4
        #expect(StillCodeReader.merged(looks(picture: [], zbar: [weak])).first?.needsConfirmation == true)
        #expect(StillCodeReader.merged(looks(picture: [], zbar: [weak], enlarged: [right])).map(\.needsConfirmation) == [false])

        let upcE = right.toBeConfirmed()
        #expect(StillCodeReader.merged(looks(picture: [upcE], zbar: [])).map(\.needsConfirmation) == [true])
        #expect(StillCodeReader.merged(looks(picture: [upcE], zbar: [zbar])).map(\.needsConfirmation) == [false])
    }

    /// An EAN-13 on a photographed label (Tests/Fixtures/ean13-read-twice.png, from the corpus) that
    /// zxing-cpp's looks report as a line and as a band beside it: scan writes one line.
    @Test func scanReportsALinearSymbolOnce() throws {
        let objects = try jsonObjects(try lookout(["scan", "--types", "ean13", Fixtures.path("ean13-read-twice.png")]))
        #expect(objects.map { $0["value"] as? String } == ["1353018417940"])
    }
}
