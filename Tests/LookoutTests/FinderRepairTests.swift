import Foundation
import Testing
@testable import Lookout

/// QR codes that lost one finder pattern (`lk_zx_read_repaired`, after `lookout scan`'s first
/// looks): cropped from benchmark photographs of the corpus, one whose top-left finder glare
/// washed out (the lost finder is the corner between the two left: a diagonal pair), one whose
/// bottom-left finder a bright spot covers (a side pair).
@Suite("finder repair")
struct FinderRepairTests {
    static let fixtures = [("qr-lost-finder-glare.png", "82JLLKLA2N"), ("qr-lost-finder-spot.png", "54724045864626956181")]

    @Test(arguments: fixtures)
    func aCodeThatLostAFinderIsReadOnceItIsPaintedBack(fixture: String, text: String) throws {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        // Nothing else reads it: neither reader on the picture, nor the first looks' copies.
        let scanner = ZXingScanner(types: [.qr])
        #expect(scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow).isEmpty,
                "zxing-cpp reads the picture as it is: the fixture no longer tests the repair")
        #expect(BarcodeScanner(types: [.qr]).scan(image, region: whole).isEmpty)
        let firstLooks = StillCodeReader(types: [.qr], zbar: BarcodeScanner(types: [.qr]), processors: 1)
            .read(image, region: whole, budget: 0, planeIsHalfSize: false)
        #expect(firstLooks.isEmpty)

        let repaired = scanner.scanRepaired(plane: image.baseAddress, width: image.width, height: image.height,
                                            bytesPerRow: image.bytesPerRow, known: [], budget: 0)
        #expect(repaired.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        // Its corners are the symbol's, in the picture: a quadrilateral of about the code's size.
        let corners = try #require(repaired.first?.corners)
        #expect(corners.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x <= Double(image.width) && $0.y <= Double(image.height) })
        let side = hypot(corners[1].x - corners[0].x, corners[1].y - corners[0].y)
        #expect(side > Double(min(image.width, image.height)) / 2)

        // A code read already is not read again, and its finders start no search.
        #expect(scanner.scanRepaired(plane: image.baseAddress, width: image.width, height: image.height,
                                     bytesPerRow: image.bytesPerRow, known: repaired, budget: 0).isEmpty)

        // scan reads it, once, with a budget (the default's) and on one processor or two.
        for processors in [1, 2] {
            let codes = StillCodeReader(types: [.qr], zbar: BarcodeScanner(types: [.qr]), processors: processors)
                .read(image, region: whole, budget: 3000, planeIsHalfSize: false)
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text], "\(processors) processors")
        }
        let objects = try jsonObjects(try lookout(["scan", "--types", "qr", Fixtures.path(fixture)]))
        #expect(objects.map { $0["value"] as? String } == [text])
    }

    /// Pictures without a code give nothing: flat, noisy and dotted ones (a dotted texture passes
    /// a finder's 1:1:3:1:1 along rows), and code-free fixtures (coins, a blank frame).
    @Test func picturesWithoutACodeGiveNothing() throws {
        let scanner = ZXingScanner(types: [.qr])
        let (width, height) = (640, 480)
        var generator = SystemRandomNumberGenerator()
        let flat = [UInt8](repeating: 128, count: width * height)
        let noise = (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Dark dots 3 px wide every 6 px: runs of 3 dark, 3 light.
        let dots = (0..<width * height).map { index -> UInt8 in index % width % 6 < 3 && index / width % 6 < 3 ? 20 : 230 }
        for (name, plane) in [("flat", flat), ("noise", noise), ("dots", dots)] {
            let codes = plane.withUnsafeBytes {
                scanner.scanRepaired(plane: $0.baseAddress!, width: width, height: height, bytesPerRow: width, known: [], budget: 0)
            }
            #expect(codes.isEmpty, "\(name)")
        }
        for fixture in ["noface-coins.png", "blank.pgm"] {
            let image = try StillImage.load(path: Fixtures.path(fixture))
            #expect(scanner.scanRepaired(plane: image.baseAddress, width: image.width, height: image.height,
                                         bytesPerRow: image.bytesPerRow, known: [], budget: 0).isEmpty, "\(fixture)")
        }
    }
}
