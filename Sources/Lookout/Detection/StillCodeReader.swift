import COpenCV
import CZXing

/// Every code in a still image (`lookout scan`), read by the means that read the most on the
/// development corpus (docs/accuracy.md), in this order:
/// 1. zxing-cpp's search for every symbol of every wanted type, trying harder, rotated, inverted
///    and downscaled;
/// 2. the same search on two copies: unsharp-masked (the picture plus twice its difference from
///    a Gaussian blur of sigma 1, read also with one threshold for the whole copy), since phones
///    blur small modules into each other; and flattened (each pixel over the light around it,
///    then sharpened), since a bright spot, glare or a shadow across a code decides no threshold
///    there. Each reads codes the picture does not;
/// 3. ZBar over the same region;
/// each adding the symbols the steps before did not read (merged by position: one report per
/// symbol); a weak linear read of ZBar's alone must be confirmed;
/// 4. when none read anything, ZBar on prepared copies (`CodeSecondPass`) within the budget:
///    glare, bright spots, blur and damage that both readers miss;
/// 5. PDF417, Aztec and DataMatrix also in windows (`ZXingFrameReader.readStill`) when the first
///    searches found none of them.
/// Used on one queue only.
final class StillCodeReader {
    let types: Set<MetadataObjectType>
    private let zxing: ZXingScanner
    private let zbar: BarcodeScanner?
    private let preparations: CodeSecondPass?
    private let windows: ZXingFrameReader?
    /// The copy zxing-cpp reads (tightly packed), kept from still to still.
    private var copy: [UInt8] = []
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
        for kind in Copy.allCases { codes.addNewSymbols(read(kind, of: pixels, region: region)) }
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

    /// The copies zxing-cpp reads after the picture, in this order (docs/accuracy.md has what
    /// each adds on the benchmark photographs).
    enum Copy: CaseIterable {
        /// Unsharp-masked at sigma 1, read with local thresholds and with one global threshold.
        case sharpened
        /// Divided by its light, stretched, sharpened at sigma 2.
        case flattened

        var looks: [ZXingScanner.Effort] {
            switch self {
            case .sharpened: [.thorough, ZXingScanner.Effort.thorough.union(.globalThreshold)]
            case .flattened: [.thorough]
            }
        }
    }

    /// What a copy may report.
    static let trustedInCopies: Set<MetadataObjectType> = [.qr, .aztec, .dataMatrix]

    /// zxing-cpp over a copy of the region; codes in the plane's pixels.
    private func read(_ kind: Copy, of pixels: PixelBuffer, region: PlaneRegion) -> [ScannedCode] {
        guard region.width >= 16, region.height >= 16 else { return [] }
        let count = region.width * region.height
        if copy.count < count { copy = [UInt8](repeating: 0, count: count) }
        let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
        let (width, height, stride) = (Int32(region.width), Int32(region.height), Int32(pixels.bytesPerRow))
        let made = copy.withUnsafeMutableBufferPointer {
            switch kind {
            case .sharpened: lk_sharpen(origin, width, height, stride, 1, $0.baseAddress!)
            case .flattened: lk_flatten_sharpen(origin, width, height, stride, $0.baseAddress!)
            }
        }
        guard made == 0 else { return [] }
        var codes = [ScannedCode]()
        for effort in kind.looks {
            codes.addNewSymbols(copy.withUnsafeBytes {
                zxing.scan(plane: $0.baseAddress!, width: region.width, height: region.height, bytesPerRow: region.width,
                           effort: effort)
            })
        }
        // Only the matrix codes whose Reed-Solomon check a sharpened edge cannot fool: on the
        // benchmark photographs a sharpened copy gave an EAN-13 under glare a wrong text that the
        // picture itself did not.
        return codes.filter { Self.trustedInCopies.contains($0.type) }.map { $0.offset(x: region.x, y: region.y) }
    }

    private func lk_region(_ region: PlaneRegion) -> lk_zx_region {
        lk_zx_region(x: Int32(region.x), y: Int32(region.y), width: Int32(region.width), height: Int32(region.height), shrink: 1)
    }
}
