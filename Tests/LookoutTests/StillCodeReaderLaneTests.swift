@testable import Lookout
import Testing

/// `lookout scan`'s first looks run in two lanes on two processors (zxing-cpp's looks beside
/// ZBar's) and are merged in one order, so a picture gives the same reads, with the same corners
/// and decoders, on one processor as on two.
@Suite struct StillCodeReaderLaneTests {
    static let pictures = ["qr-shelf.png", "qr-blurred.png", "qr-over-exposed.png", "qr-inverted.png", "ean13.png",
                           "upca.png", "pdf417-bcbp.png", "aztec-bcbp.png", "datamatrix-gs1.png", "noface-coins.png"]

    /// Every code type, with the analysis's ZBar scanner for the types it reads.
    private func reader(processors: Int) -> StillCodeReader {
        let types = Set(MetadataObjectType.allCodeTypes)
        return StillCodeReader(types: types, zbar: BarcodeScanner(types: types.filter { !$0.isReadByZXingOnly }),
                               processors: processors)
    }

    /// What a read says, in a form to compare: type, bytes, corners and who read it, in order.
    private func summary(_ codes: [ScannedCode]) -> [String] {
        codes.map { "\($0.type.rawValue) \($0.payload) \($0.corners.map { "\($0.x),\($0.y)" }) \($0.decoder)" }
    }

    @Test func twoLanesReadWhatOneReads() throws {
        let one = reader(processors: 1), two = reader(processors: 2)
        var read = 0
        for name in Self.pictures {
            let image = try StillImage.load(path: Fixtures.path(name))
            let whole = (x: 0, y: 0, width: image.width, height: image.height)
            // Twice each: the lanes keep their buffers from picture to picture.
            for _ in 0..<2 {
                let alone = one.read(image, region: whole, budget: 3000, planeIsHalfSize: false)
                let side = two.read(image, region: whole, budget: 3000, planeIsHalfSize: false)
                #expect(summary(side) == summary(alone), "\(name)")
                read += alone.count
            }
        }
        // The pictures hold codes both readers read (the shelf's twelve labels among them), so
        // the order of the merge decides which read of a symbol is kept.
        #expect(read >= 2 * 20)
        #expect(two.zxingLooks == 2 * Self.pictures.count && one.zxingLooks == two.zxingLooks)
    }
}
