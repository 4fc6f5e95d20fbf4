import COpenCV
import CZXing
import Dispatch

/// Every code in a still image (`lookout scan`), read by the means that read the most on the
/// development corpus (docs/accuracy.md), in this order:
/// 1. zxing-cpp's search for every symbol of every wanted type, trying harder, rotated, inverted
///    and downscaled;
/// 2. the same search on two copies: unsharp-masked (the picture plus twice its difference from
///    a Gaussian blur of sigma 1, read also with one threshold for the whole copy), since phones
///    blur small modules into each other; and flattened (each pixel over the light around it,
///    then sharpened), since a bright spot, glare or a shadow across a code decides no threshold
///    there. Each reads codes the picture does not; a linear code of the copies is vouched for
///    (`merged`): its check digit is easier to fool than Reed-Solomon;
/// 3. ZBar over the same region, and zxing-cpp over a copy enlarged twice and sharpened (pictures
///    up to `enlargedPixels`): small modules get room for their edges;
/// each adding the symbols the steps before did not read (merged by position: one report per
/// symbol); a weak linear read of ZBar's alone must be confirmed. Steps 1 to 3 are independent:
/// on two processors they run in two lanes (`Look`, `sideBySide`), the same reads in less time;
/// 4. EAN and UPC symbols where rows of bars are (`linearPlaces`), within the budget: read in
///    their place as it is, and in copies of it, also turned upright; small or leaning symbols;
///    where nothing stands, flattened and deconvolved too, and an EAN-13 read from its bars' grey
///    levels in two halves (`EAN13ProfileReader`), with ZBar vouching on the flattened copy. An
///    EAN-13 or UPC-A of modules near a pixel, read by the first looks (at any budget) or in its
///    place, is asked of its bars' grey levels (`EAN13ProfileReader.checked`): a threshold
///    misreads such bars.
///    Then QR, Aztec, DataMatrix and PDF417 symbols zxing-cpp found but could not decode: a
///    DataMatrix or QR symbol decoded again with its least sure codewords erased (glare, a stain,
///    a logo over it); the others read again in their own place, enlarged and made black and
///    white there, a PDF417 stood square by its corners (`UndecodedSymbolReader`). Then
///    QR codes that lost one finder pattern to glare, a bright spot or a tear, read with it
///    painted back where the two left say it was (`lk_zx_read_repaired`), within the budget; then
///    QR codes of small blurred modules where the picture looks like a matrix symbol, enlarged in
///    their place (`enlargedPlaces`): in pictures of any size; toned first when glare or
///    over-exposure took their light modules (`PlaceTone`); a small place, deconvolved; then
///    QR, Aztec and DataMatrix symbols on labels round a can, unrolled in their place
///    (`unrolledPlaces`, `CylinderView`), and those zxing-cpp found but did not read, in theirs
///    (`unrolledSymbols`);
/// 5. when none read anything, ZBar on prepared copies (`CodeSecondPass`) within the budget:
///    glare, bright spots, blur and damage that both readers miss;
/// 6. PDF417, Aztec and DataMatrix also in windows (`ZXingFrameReader.readStill`) when the first
///    searches found none of them; then, when still no PDF417, the picture darkened, and its
///    faint places of rows in a contrast-normalised copy (`ZXingFrameReader.readFaintRows`);
/// 7. Aztec and DataMatrix symbols deconvolved in their place (`deconvolvedMatrixPlaces`), where
///    no code read lies, whatever the steps before read.
/// Used on one queue only.
final class StillCodeReader {
    let types: Set<MetadataObjectType>
    private let preparations: CodeSecondPass?
    private let windows: ZXingFrameReader?
    private let undecoded: UndecodedSymbolReader?
    /// ZBar over a place's flattened copy (`linearPlaces`): another decoder on the copy, its own
    /// scanner (the first looks' may be busy in the other lane).
    let placeZBar: BarcodeScanner?
    /// The first looks' lanes, each with its own zxing-cpp buffers behind its own lock: run side
    /// by side on two processors, one after the other on one.
    let lanes: [Locked<Lane>]
    /// Stills the prepared copies read something in.
    private(set) var secondPassReads = 0
    /// Images zxing-cpp read, and reads that failed.
    private(set) var zxingLooks = 0
    var zxingFailures: Int { lanes.reduce(0) { sum, lane in sum + lane.withLock { $0.zxing.failures } } + (windows?.failures ?? 0)
        + (undecoded?.failures ?? 0) }

    /// - Parameters:
    ///   - zbar: the analysis's ZBar scanner (nil when no type ZBar reads is wanted).
    ///   - processors: how many processors the first looks may use at once (1: one at a time).
    init(types: Set<MetadataObjectType>, zbar: BarcodeScanner?, processors: Int = DetectorPool.onlineProcessorCount) {
        self.types = types
        let zbarTypes = types.filter { !$0.isReadByZXingOnly }
        // zxing-cpp has looked at the picture as it is, and inverted: the copies are ZBar's.
        preparations = zbarTypes.isEmpty ? nil
            : CodeSecondPass(types: zbarTypes, steps: CodeSecondPass.Step.allCases.filter { $0 != .zxing })
        windows = types.contains(where: \.isReadByZXingOnly) ? ZXingFrameReader(types: types) : nil
        undecoded = UndecodedSymbolReader(types: types)
        let linearTypes = types.intersection(Self.vouchedInCopies)
        placeZBar = linearTypes.isEmpty ? nil : BarcodeScanner(types: linearTypes)
        lanes = (processors > 1 ? Self.sideBySide : [Look.allCases]).map {
            Locked(Lane(looks: $0, zxing: ZXingScanner(types: types), zbar: $0.contains(.zbar) ? zbar : nil))
        }
    }

    /// The codes in `region` of the plane, in its pixels; `budget` milliseconds for the prepared
    /// copies and windows (0 turns them off; the two readers' first looks always run).
    func read(_ pixels: PixelBuffer, region: PlaneRegion, budget: Double, planeIsHalfSize: Bool) -> [ScannedCode] {
        let start = MonotonicClock.nanoseconds()
        let deadline = start + Int64(budget * 1e6)
        var codes = firstLooks(pixels, region: region, planeIsHalfSize: planeIsHalfSize)
        // The windows look for PDF417, Aztec and DataMatrix when the first looks found none: a
        // symbol a place gave (unrolled) does not make them skip the rest of the picture.
        let firstLooksReadZXingOnly = codes.contains(where: \.type.isReadByZXingOnly)
        zxingLooks += 1
        let confirming = max(deadline, start + Int64(CodeAnalysis.confirmationBudget * 1e6))
        confirm(&codes, in: pixels, deadline: confirming)
        // Before the places are read, so that the place of a read dropped is read again; at any
        // budget, as weak reads are confirmed. A read replaced may be of a symbol read twice (as
        // an EAN-13 and as a UPC-A): one report.
        let checked = codes.compactMap { EAN13ProfileReader.checked($0, in: pixels, region: region, wanted: types) }
        codes = []
        codes.addNewSymbols(checked)
        if budget > 0, !types.isDisjoint(with: Self.vouchedInCopies) {
            var placed = linearPlaces(pixels, region: region, known: codes, deadline: deadline)
            confirm(&placed, in: pixels, deadline: confirming)
            placed = placed.compactMap { EAN13ProfileReader.checked($0, in: pixels, region: region, wanted: types) }
            codes.addNewSymbols(placed)
        }
        // The symbols zxing-cpp found and this read could not: unrolled below.
        var unreadSymbols = [PlaneRegion]()
        if let undecoded, budget > 0, MonotonicClock.nanoseconds() < deadline {
            codes.addNewSymbols(undecoded.read(pixels, region: region, known: codes, deadline: deadline))
            unreadSymbols = undecoded.unread
        }
        if types.contains(.qr), budget > 0 {
            codes.addNewSymbols(repaired(pixels, region: region, known: codes, deadline: deadline))
            if MonotonicClock.nanoseconds() < deadline {
                codes.addNewSymbols(enlargedPlaces(pixels, region: region, known: codes, deadline: deadline))
            }
        }
        let matrixTypes = types.intersection(Self.trustedInCopies)
        if !matrixTypes.isEmpty, budget > 0, MonotonicClock.nanoseconds() < deadline {
            codes.addNewSymbols(unrolledPlaces(pixels, region: region, known: codes, types: matrixTypes, deadline: deadline))
        }
        if !unreadSymbols.isEmpty, !matrixTypes.isEmpty, budget > 0, MonotonicClock.nanoseconds() < deadline {
            codes.addNewSymbols(unrolledSymbols(pixels, places: unreadSymbols, known: codes, types: matrixTypes, deadline: deadline))
        }
        if codes.isEmpty, budget > 0, let preparations {
            codes = preparations.scan(pixels, region: region, deadline: deadline)
            if !codes.isEmpty { secondPassReads += 1 }
        }
        if let windows, budget > 0, !firstLooksReadZXingOnly {
            let left = max(1, Int((deadline - MonotonicClock.nanoseconds()) / 1_000_000))
            codes.addNewSymbols(windows.readStill(pixels, budget: left))
        }
        // An over-exposed PDF417 symbol: a bright label washes its narrow spaces into the light, and
        // no threshold of the picture or a window sets them apart, nor do the places of rows find
        // it; darkened, the whole region is read once more.
        if types.contains(.pdf417), budget > 0, !codes.contains(where: { $0.type == .pdf417 }), MonotonicClock.nanoseconds() < deadline {
            codes.addNewSymbols(lanes[0].withLock { lane in
                lane.readToned(pixels, region: region, tone: .darkened, enlarged: false).filter { $0.type == .pdf417 }
            })
        }
        // A faint PDF417 symbol (in the dark, in low contrast): its contrast normalised, where
        // rows of bars are.
        if types.contains(.pdf417), let windows, budget > 0, !codes.contains(where: { $0.type == .pdf417 }),
           MonotonicClock.nanoseconds() < deadline {
            let left = max(1, Int((deadline - MonotonicClock.nanoseconds()) / 1_000_000))
            codes.addNewSymbols(windows.readFaintRows(pixels, budget: left))
        }
        let deconvolvedTypes = types.intersection([.aztec, .dataMatrix])
        if !deconvolvedTypes.isEmpty, budget > 0, MonotonicClock.nanoseconds() < deadline {
            codes.addNewSymbols(deconvolvedMatrixPlaces(pixels, region: region, known: codes, types: deconvolvedTypes, deadline: deadline))
        }
        return codes
    }

    /// Drops the reads that need confirming (`ScannedCode.needsConfirmation`) and that no
    /// prepared copy confirms by `deadline`.
    private func confirm(_ codes: inout [ScannedCode], in pixels: PixelBuffer, deadline: Int64) {
        guard codes.contains(where: \.needsConfirmation) else { return }
        codes.removeAll { $0.needsConfirmation && !(preparations?.confirms($0, in: pixels, deadline: deadline) ?? false) }
    }

    /// The first looks at a still, each independent of the others. Their reads are merged in
    /// `Look`'s order, whichever lane ran them, so two processors read exactly what one reads
    /// (docs/accuracy.md has what each copy adds on the benchmark photographs).
    enum Look: Int, CaseIterable {
        /// zxing-cpp over the picture, every wanted type at once.
        case picture
        /// Unsharp-masked at sigma 1, read with local thresholds and with one global threshold.
        case sharpened
        /// Divided by its light, stretched, sharpened at sigma 2.
        case flattened
        /// ZBar over the picture; its reads where no zxing-cpp read lies.
        case zbar
        /// Enlarged twice each way, sharpened at sigma 2 of its pixels (1 of the picture's), when
        /// the picture is small enough (`enlargedPixels`): after all the others, so it only adds.
        case enlarged

        /// How zxing-cpp reads a copy, once per effort.
        var copyEfforts: [ZXingScanner.Effort] {
            switch self {
            case .sharpened: [.thorough, ZXingScanner.Effort.thorough.union(.globalThreshold)]
            case .flattened, .enlarged: [.thorough]
            case .picture, .zbar: []
            }
        }
    }

    /// The most pixels a picture may have to be read enlarged as well (a 4-megapixel photograph):
    /// a larger one's codes have modules large enough, and its copy would cost four times as much.
    static let enlargedPixels = 4_000_000

    /// The most pixels a place may have to be read enlarged (`enlargedPlaces`): a symbol of
    /// modules small enough to need it is smaller (those read so on the benchmark photographs are
    /// at most 0.42 Mpx), and each copy costs four times its place.
    static let enlargedPlacePixels: Int32 = 1_000_000

    /// The looks' lanes on two processors, about as long as each other on the benchmark photographs:
    /// the three copies, and the picture read by both readers.
    static let sideBySide: [[Look]] = [[.sharpened, .flattened, .enlarged], [.picture, .zbar]]

    /// A lane's looks, with its own zxing-cpp reader and copy, and the analysis's ZBar scanner in
    /// the lane that looks with it.
    struct Lane {
        let looks: [Look]
        let zxing: ZXingScanner
        let zbar: BarcodeScanner?
        /// The copy zxing-cpp reads (tightly packed), kept from still to still.
        var copy: [UInt8] = []

        /// The reads of `look`, in the plane's pixels: one list for the picture, one per effort for a copy.
        mutating func read(_ look: Look, of pixels: PixelBuffer, region: PlaneRegion, planeIsHalfSize: Bool) -> [[ScannedCode]] {
            switch look {
            case .picture:
                let whole = lk_zx_region(x: Int32(region.x), y: Int32(region.y), width: Int32(region.width),
                                         height: Int32(region.height), shrink: 1)
                return [zxing.scan(plane: pixels.baseAddress, width: pixels.width, height: pixels.height,
                                   bytesPerRow: pixels.bytesPerRow, regions: [whole], budget: 0)]
            case .zbar: return [zbar?.scan(pixels, region: region, planeIsHalfSize: planeIsHalfSize) ?? []]
            case .enlarged where region.width * region.height > StillCodeReader.enlargedPixels: return []
            case .sharpened, .flattened, .enlarged: return readCopy(look, of: pixels, region: region)
            }
        }

        /// zxing-cpp over a copy of the region, a list per effort; codes in the plane's pixels.
        /// - Parameters:
        ///   - sigma: the sharpening, in the copy's pixels (nil: the look's own, 1 sharpened, 2 enlarged).
        ///   - also: what each effort adds (`.turned` for a place).
        mutating func readCopy(_ kind: Look, of pixels: PixelBuffer, region: PlaneRegion, sigma: Double? = nil,
                               also: ZXingScanner.Effort = []) -> [[ScannedCode]] {
            readCopy(of: pixels, region: region, scale: kind == .enlarged ? 2 : 1, efforts: kind.copyEfforts.map { $0.union(also) }) {
                switch kind {
                case .sharpened: lk_sharpen($0, $1, $2, $3, sigma ?? 1, $4)
                case .flattened: lk_flatten_sharpen($0, $1, $2, $3, $4)
                case .enlarged: lk_enlarge_sharpen($0, $1, $2, $3, sigma ?? 2, $4)
                case .picture, .zbar: -1
                }
            }
        }

        /// zxing-cpp over a copy of the region, `scale` times its size each way, that `make` writes,
        /// a list per effort; codes in the plane's pixels.
        mutating func readCopy(of pixels: PixelBuffer, region: PlaneRegion, scale: Int, efforts: [ZXingScanner.Effort],
                               made make: CopyMaker) -> [[ScannedCode]] {
            readCopy(of: pixels, region: region, size: (region.width * scale, region.height * scale), efforts: efforts,
                     made: { make($0, Int32(region.width), Int32(region.height), Int32(pixels.bytesPerRow), $1) == 0 },
                     placePoint: { Point(x: $0.x / Double(scale), y: $0.y / Double(scale)) })
        }

        /// What writes a copy of a region: from its origin, width, height and stride into the
        /// tightly packed copy, 0 when made (the C functions' own shape, as `lk_flatten_sharpen`).
        typealias CopyMaker = (UnsafePointer<UInt8>, Int32, Int32, Int32, UnsafeMutablePointer<UInt8>) -> Int32

        /// zxing-cpp over a copy of the region of `size` that `make` writes (from the region's
        /// origin into the tightly packed copy; false when it could not), a list per effort; codes
        /// in the plane's pixels, `placePoint` taking a point of the copy into the region's.
        mutating func readCopy(of pixels: PixelBuffer, region: PlaneRegion, size: (width: Int, height: Int),
                               efforts: [ZXingScanner.Effort],
                               made make: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Bool,
                               placePoint: (Point) -> Point) -> [[ScannedCode]] {
            guard makeCopy(of: pixels, region: region, size: size, made: make) else { return [] }
            return efforts.map { effort in
                copy.withUnsafeBytes { [zxing] in
                    zxing.scan(plane: $0.baseAddress!, width: size.width, height: size.height, bytesPerRow: size.width, effort: effort)
                }.map { $0.placed(placePoint).offset(x: region.x, y: region.y) }
            }
        }

        /// Writes `copy`, of `size`, from the region with `make` (from the region's origin into the
        /// tightly packed copy); false when the region or the copy is too small to read, or `make` could not.
        mutating func makeCopy(of pixels: PixelBuffer, region: PlaneRegion, size: (width: Int, height: Int),
                               made make: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Bool) -> Bool {
            guard region.width >= 16, region.height >= 16, size.width >= 16, size.height >= 16 else { return false }
            let count = size.width * size.height
            if copy.count < count { copy = [UInt8](repeating: 0, count: count) }
            let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
            return copy.withUnsafeMutableBufferPointer { make(origin, $0.baseAddress!) }
        }
    }

    /// QR codes that lost a finder pattern to glare, a bright spot or a tear, in the region: where
    /// two finders say the third must be, it is painted in a copy (`lk_zx_read_repaired`). Codes
    /// read already are not looked for again (docs/accuracy.md has what it adds).
    private func repaired(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], deadline: Int64) -> [ScannedCode] {
        let left = max(1, Int((deadline - MonotonicClock.nanoseconds()) / 1_000_000))
        let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
        let inRegion = known.map { $0.offset(x: -region.x, y: -region.y) }
        return lanes[0].withLock { lane in
            lane.zxing.scanRepaired(plane: origin, width: region.width, height: region.height, bytesPerRow: pixels.bytesPerRow,
                                    known: inRegion, budget: left)
        }.map { $0.offset(x: region.x, y: region.y) }
    }

    func firstLooks(_ pixels: PixelBuffer, region: PlaneRegion, planeIsHalfSize: Bool) -> [ScannedCode] {
        let found = Locked([[[ScannedCode]]](repeating: [], count: Look.allCases.count))
        let lanes = lanes
        let run = { @Sendable (lane: Locked<Lane>) in
            lane.withLock { lane in
                for look in lane.looks {
                    let reads = lane.read(look, of: pixels, region: region, planeIsHalfSize: planeIsHalfSize)
                    found.withLock { $0[look.rawValue] = reads }
                }
            }
        }
        if lanes.count == 1 { run(lanes[0]) } else { DispatchQueue.concurrentPerform(iterations: lanes.count) { run(lanes[$0]) } }
        return Self.merged(found.withLock { $0 })
    }

    /// What a copy may report when vouched for: the EAN and UPC family, whose check digit is
    /// confirmed as ZBar's weak reads are.
    static let vouchedInCopies: Set<MetadataObjectType> = [.ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13]

    /// What a copy may report on its own: the matrix codes whose Reed-Solomon check a sharpened
    /// edge cannot fool.
    static let trustedInCopies: Set<MetadataObjectType> = [.qr, .aztec, .dataMatrix]
}
