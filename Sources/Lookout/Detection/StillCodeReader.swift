import CZXing

/// Every code in a still image (`lookout scan`), read by the means that read the most on the
/// development corpus (docs/accuracy.md), in this order:
/// 1. zxing-cpp's search for every symbol of every wanted type, trying harder, rotated, inverted
///    and downscaled;
/// 2. ZBar over the same region, its reads added where zxing-cpp read nothing (merged by
///    position: one report per symbol); a weak linear read of ZBar's alone must be confirmed;
/// 3. when neither read anything, ZBar on prepared copies (`CodeSecondPass`) within the budget:
///    glare, bright spots, blur and damage that both readers miss;
/// 4. PDF417, Aztec and DataMatrix also in windows (`ZXingFrameReader.readStill`) when the first
///    search found none of them.
/// Used on one queue only.
final class StillCodeReader {
    let types: Set<MetadataObjectType>
    private let zxing: ZXingScanner
    private let zbar: BarcodeScanner?
    private let preparations: CodeSecondPass?
    private let windows: ZXingFrameReader?
    /// Stills the prepared copies read something in.
    private(set) var secondPassReads = 0
    /// Images zxing-cpp read, and reads that failed.
    private(set) var zxingLooks = 0
    var zxingFailures: Int { zxing.failures + (windows?.failures ?? 0) }

    /// - Parameter zbar: the analysis's ZBar scanner (nil when no type ZBar reads is wanted).
    init(types: Set<MetadataObjectType>, zbar: BarcodeScanner?) {
        self.types = types
        self.zbar = zbar
        zxing = ZXingScanner(types: types)
        let zbarTypes = types.filter { !$0.isReadByZXingOnly }
        // zxing-cpp has looked at the picture as it is, and inverted: the copies are ZBar's.
        preparations = zbarTypes.isEmpty ? nil
            : CodeSecondPass(types: zbarTypes, steps: CodeSecondPass.Step.allCases.filter { $0 != .zxing })
        windows = types.contains(where: \.isReadByZXingOnly) ? ZXingFrameReader(types: types) : nil
    }

    /// The codes in `region` of the plane, in its pixels; `budget` milliseconds for the prepared
    /// copies and windows (0 turns them off; the two readers' first looks always run).
    func read(_ pixels: PixelBuffer, region: PlaneRegion, budget: Double, planeIsHalfSize: Bool) -> [ScannedCode] {
        let start = MonotonicClock.nanoseconds()
        let deadline = start + Int64(budget * 1e6)
        let origin = pixels.baseAddress
        var codes = zxing.scan(plane: origin, width: pixels.width, height: pixels.height, bytesPerRow: pixels.bytesPerRow,
                               regions: [lk_region(region)], budget: 0)
        zxingLooks += 1
        if let zbar {
            codes.addNewSymbols(zbar.scan(pixels, region: region, planeIsHalfSize: planeIsHalfSize))
        }
        if codes.contains(where: \.needsConfirmation) {
            let confirming = max(deadline, start + Int64(CodeAnalysis.confirmationBudget * 1e6))
            codes.removeAll { $0.needsConfirmation && !(preparations?.confirms($0, in: pixels, deadline: confirming) ?? false) }
        }
        if codes.isEmpty, budget > 0, let preparations {
            codes = preparations.scan(pixels, region: region, deadline: deadline)
            if !codes.isEmpty { secondPassReads += 1 }
        }
        if let windows, budget > 0, !codes.contains(where: \.type.isReadByZXingOnly) {
            let left = max(1, Int((deadline - MonotonicClock.nanoseconds()) / 1_000_000))
            codes.addNewSymbols(windows.readStill(pixels, budget: left))
        }
        return codes
    }

    private func lk_region(_ region: PlaneRegion) -> lk_zx_region {
        lk_zx_region(x: Int32(region.x), y: Int32(region.y), width: Int32(region.width), height: Int32(region.height), shrink: 1)
    }
}
