import COpenCV
import CZXing

/// QR, Aztec, DataMatrix and PDF417 symbols that zxing-cpp finds in a still but cannot decode
/// (`lk_zx_find_undecoded`), read again in their own place (`lookout scan`, within its budget).
///
/// zxing-cpp read a matrix symbol's finders or bullseye and its format, or a PDF417's start and
/// stop patterns and row indicators, so the place is exactly the symbol's; only Reed-Solomon
/// could not restore what was sampled there.
/// - A DataMatrix or QR symbol (also light on dark) under glare, a stain or a logo: the modules
///   whose gray level is least sure are taken as erasures, which cost Reed-Solomon half what
///   wrong guesses cost (`lk_zx_find_undecoded`, `SoftMatrix.hpp`).
/// - A matrix symbol's threshold gave too many wrong modules: light falling unevenly across a
///   small symbol (over-exposed, wrapped round a can). The place, with a margin, is enlarged
///   twice (bicubic), sharpened, and made black and white against the mean of a quarter of the
///   symbol's side around each pixel (`lk_enlarge_threshold`), then read as it is.
/// - A PDF417 seen at a slant has rows that zxing-cpp's scan lines cross at an angle and
///   codewords that shrink along them. The place is stood square by its four corners
///   (`lk_zx_rectify`), with a margin for the quiet zone, and read with local thresholds, then one
///   threshold for the copy.
///
/// Reads stand on their Reed-Solomon check, as every matrix and PDF417 read does.
/// docs/accuracy.md has what it adds and costs.
final class UndecodedSymbolReader {
    private let scanner: ZXingScanner
    /// PDF417 alone, for the squared copies; nil when PDF417 is not wanted.
    private let rowsScanner: ZXingScanner?
    /// The black and white or squared copy, kept from place to place.
    private var copy: [UInt8] = []
    /// The last `read`'s QR, Aztec and DataMatrix symbols not read, each the symbol's box grown so
    /// that it fills about half of it (plane pixels): where a symbol on a label round a can is
    /// unrolled (`StillCodeReader.unrolledSymbols`).
    private(set) var unread: [PlaneRegion] = []
    /// Searches and reads zxing-cpp failed (it threw: out of memory).
    var failures: Int { scanner.failures + (rowsScanner?.failures ?? 0) }

    /// The margin round a symbol's box in its copy, a share of its longer side.
    static let margin = 0.15
    /// Symbols longer than this (plane pixels) are not copied: a copy four times their area each.
    static let longestSide = 600.0
    /// Symbols shorter than this have too few pixels a module to set apart.
    static let shortestSide = 12.0
    /// The sharpening, in the enlarged copy's pixels.
    static let sigma = 2.0
    /// The margin round a PDF417 stood square, a share of each side of its copy: a few modules
    /// of quiet zone beside the start and stop patterns, and above and below the rows.
    static let squaredMargin: Float = 0.08
    /// PDF417 copies larger than this (pixels) are not made: two reads of one would take long
    /// past the budget, and the copy is kept. A symbol of 17-pixel modules across a 4 Mpx
    /// photograph fits.
    static let squaredPixels = 2_000_000

    /// Nil when no type it reads (QR, Aztec, DataMatrix, PDF417) is wanted.
    init?(types: Set<MetadataObjectType>) {
        let read = types.intersection([.qr, .aztec, .dataMatrix, .pdf417])
        guard !read.isEmpty else { return nil }
        scanner = ZXingScanner(types: read)
        rowsScanner = read.contains(.pdf417) ? ZXingScanner(types: [.pdf417]) : nil
    }

    /// Reads zxing-cpp's failures that the plane's `region` holds, but those whose centre lies in
    /// a code of `known`; nothing more once `deadline` has passed. Codes in the plane's pixels.
    func read(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], deadline: Int64) -> [ScannedCode] {
        unread = []
        guard region.width >= 16, region.height >= 16, MonotonicClock.nanoseconds() < deadline else { return [] }
        let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
        let (places, restored) = scanner.undecoded(plane: origin, width: region.width, height: region.height,
                                                   bytesPerRow: pixels.bytesPerRow)
        // The boxes of codes read, before and here: a place inside one is read already.
        var covered = known.map { Rect.enclosing($0.corners) }
        var codes = [ScannedCode]()
        for code in restored.map({ $0.offset(x: region.x, y: region.y) }) {
            let box = Rect.enclosing(code.corners)
            guard !covered.contains(where: { $0.contains(Point(x: box.midX, y: box.midY)) }) else { continue }
            covered.append(box)
            codes.append(code)
        }
        for place in places where MonotonicClock.nanoseconds() < deadline {
            let box = Rect.enclosing(place.corners)
            let centre = Point(x: Double(region.x) + box.midX, y: Double(region.y) + box.midY)
            guard !covered.contains(where: { $0.contains(centre) }) else { continue }
            let read = place.type == .pdf417 ? readSquared(place.corners, of: pixels, in: region) : read(box, of: pixels, in: region)
            covered += read.map { Rect.enclosing($0.corners) }
            codes += read
            if read.isEmpty, place.type != .pdf417, let place = Self.unrolling(box, in: region) { unread.append(place) }
        }
        return codes
    }

    /// The plane's region a symbol's `box` (the region's pixels) is unrolled in: grown by a fifth
    /// of its side each way (the symbol about half of it, as `CylinderView`'s shares want), within
    /// the region; nil for a symbol of a side this reader does not copy either (each view is a
    /// copy, and a ladder has hundreds).
    static func unrolling(_ box: Rect, in region: PlaneRegion) -> PlaneRegion? {
        let side = max(box.width, box.height)
        guard side >= shortestSide, side <= longestSide else { return nil }
        let margin = 0.2 * side
        let left = max(0, Int(box.x - margin)), top = max(0, Int(box.y - margin))
        let right = min(region.width, Int((box.maxX + margin).rounded(.up)))
        let bottom = min(region.height, Int((box.maxY + margin).rounded(.up)))
        return (x: region.x + left, y: region.y + top, width: max(0, right - left), height: max(0, bottom - top))
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

    /// The codes read in a copy of the PDF417 symbol within `corners` (the region's pixels), stood
    /// square; corners mapped back into the plane's pixels.
    private func readSquared(_ corners: [Point], of pixels: PixelBuffer, in region: PlaneRegion) -> [ScannedCode] {
        guard let rowsScanner, corners.count == 4 else { return [] }
        let origin = pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + region.y * pixels.bytesPerRow + region.x
        let quad = corners.flatMap { [Float($0.x), Float($0.y)] }
        var width: Int32 = 0, height: Int32 = 0
        var homography = [Double](repeating: 0, count: 8)
        // Into the kept copy; 1 (its size written) when the copy needs more room.
        func square() -> Int32 {
            copy.withUnsafeMutableBufferPointer {
                lk_zx_rectify(origin, Int32(region.width), Int32(region.height), Int32(pixels.bytesPerRow), quad, Self.squaredMargin,
                              $0.baseAddress, Int32($0.count), &width, &height, &homography)
            }
        }
        var made = square()
        if made == 1 {
            guard Int(width) * Int(height) <= Self.squaredPixels else { return [] }
            copy = [UInt8](repeating: 0, count: Int(width) * Int(height))
            made = square()
        }
        guard made == 0 else { return [] }
        // Local thresholds first; one threshold for the copy where light fell evenly across it
        // and the local averages lose thin bars (an over-exposed label).
        var read = [ScannedCode]()
        for effort: ZXingScanner.Effort in [[.harder], [.harder, .globalThreshold]] where read.isEmpty {
            read = copy.withUnsafeBytes {
                rowsScanner.scan(plane: $0.baseAddress!, width: Int(width), height: Int(height), bytesPerRow: Int(width), effort: effort)
            }
        }
        return read.compactMap { code in
            var placed = code
            placed.corners = []
            for corner in code.corners {
                guard let point = Self.source(of: corner, through: homography, in: region) else { return nil }
                placed.corners.append(point)
            }
            return placed
        }
    }

    /// A point of a squared copy back in the plane's pixels, through the copy's `homography` (as
    /// `lookout::Rectified::source` maps it in C++, here for the codes' corners);
    /// nil where the homography sends it to infinity or outside the region (steep perspective
    /// can put the horizon inside the copy's margin).
    static func source(of point: Point, through h: [Double], in region: PlaneRegion) -> Point? {
        let w = h[6] * point.x + h[7] * point.y + 1
        guard w > 1e-6 else { return nil }
        let x = (h[0] * point.x + h[1] * point.y + h[2]) / w, y = (h[3] * point.x + h[4] * point.y + h[5]) / w
        // A corner may lie a little outside: the copy's margin repeats the region's border.
        let slack = 0.1 * Double(max(region.width, region.height))
        guard x.isFinite, y.isFinite, x >= -slack, y >= -slack, x <= Double(region.width) + slack,
              y <= Double(region.height) + slack else { return nil }
        return Point(x: Double(region.x) + min(max(0, x), Double(region.width)),
                     y: Double(region.y) + min(max(0, y), Double(region.height)))
    }
}
