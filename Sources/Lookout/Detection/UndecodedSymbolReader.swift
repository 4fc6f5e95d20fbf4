import COpenCV

/// QR, Aztec and DataMatrix symbols that zxing-cpp finds in a still but cannot decode
/// (`lk_zx_find_undecoded`), read again in their own place (`lookout scan`, within its budget).
///
/// zxing-cpp read their finders or bullseye and their format, so the place is exactly the
/// symbol's; only its threshold gave more wrong modules than Reed-Solomon restores: light
/// falling unevenly across a small symbol (over-exposed, wrapped round a can). The place, with a
/// margin, is enlarged twice (bicubic), sharpened, and made black and white against the mean of
/// a quarter of the symbol's side around each pixel (`lk_enlarge_threshold`), then read as it is.
/// Reads stand on their Reed-Solomon check, as every matrix read does. docs/accuracy.md has what
/// it adds and costs.
final class UndecodedSymbolReader {
    private let scanner: ZXingScanner
    /// The black and white copy, kept from place to place.
    private var copy: [UInt8] = []
    /// Searches and reads zxing-cpp failed (it threw: out of memory).
    var failures: Int { scanner.failures }

    /// The margin round a symbol's box in its copy, a share of its longer side.
    static let margin = 0.15
    /// Symbols longer than this (plane pixels) are not copied: a copy four times their area each.
    static let longestSide = 600.0
    /// Symbols shorter than this have too few pixels a module to set apart.
    static let shortestSide = 12.0
    /// The sharpening, in the enlarged copy's pixels.
    static let sigma = 2.0

    /// Nil when no type it reads (QR, Aztec, DataMatrix) is wanted.
    init?(types: Set<MetadataObjectType>) {
        let matrix = types.intersection([.qr, .aztec, .dataMatrix])
        guard !matrix.isEmpty else { return nil }
        scanner = ZXingScanner(types: matrix)
    }

    /// Reads zxing-cpp's failures that the plane's `region` holds, but those whose centre lies in
    /// a code of `known`; nothing more once `deadline` has passed. Codes in the plane's pixels.
    func read(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], deadline: Int64) -> [ScannedCode] {
        guard region.width >= 16, region.height >= 16, MonotonicClock.nanoseconds() < deadline else { return [] }
        let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
        let places = scanner.undecoded(plane: origin, width: region.width, height: region.height, bytesPerRow: pixels.bytesPerRow)
        // The boxes of codes read, before and here: a place inside one is read already.
        var covered = known.map { Rect.enclosing($0.corners) }
        var codes = [ScannedCode]()
        for corners in places where MonotonicClock.nanoseconds() < deadline {
            let box = Rect.enclosing(corners)
            let centre = Point(x: Double(region.x) + box.midX, y: Double(region.y) + box.midY)
            guard !covered.contains(where: { $0.contains(centre) }) else { continue }
            let read = read(box, of: pixels, in: region)
            covered += read.map { Rect.enclosing($0.corners) }
            codes += read
        }
        return codes
    }

    /// The codes read in a copy of `box` (the region's pixels) with its margin.
    private func read(_ box: Rect, of pixels: PixelBuffer, in region: PlaneRegion) -> [ScannedCode] {
        let side = max(box.width, box.height)
        guard side >= Self.shortestSide, side <= Self.longestSide else { return [] }
        let margin = Self.margin * side
        let left = max(0, Int(box.x - margin)), top = max(0, Int(box.y - margin))
        let right = min(region.width, Int((box.maxX + margin).rounded(.up)))
        let bottom = min(region.height, Int((box.maxY + margin).rounded(.up)))
        let width = right - left, height = bottom - top
        guard width >= 8, height >= 8 else { return [] }
        // A quarter of the symbol's side in the enlarged copy, odd: several modules of any symbol.
        let block = Int32(max(11, Int(side / 2) | 1))
        let count = 4 * width * height
        if copy.count < count { copy = [UInt8](repeating: 0, count: count) }
        let start = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + (region.y + top) * pixels.bytesPerRow + region.x + left
        let made = copy.withUnsafeMutableBufferPointer {
            lk_enlarge_threshold(start, Int32(width), Int32(height), Int32(pixels.bytesPerRow), Self.sigma, block, $0.baseAddress!)
        }
        guard made == 0 else { return [] } // as every copy step: what cannot be copied is not read
        return copy.withUnsafeBytes { [scanner] in
            scanner.scan(plane: $0.baseAddress!, width: 2 * width, height: 2 * height, bytesPerRow: 2 * width, scale: 0.5,
                         effort: [.harder, .binary])
        }.map { $0.offset(x: region.x + left, y: region.y + top) }
    }
}
