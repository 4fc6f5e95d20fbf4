import COpenCV
import CZXing

/// zxing-cpp over analysed frames for the kinds ZBar cannot read (PDF417, Aztec, DataMatrix), and
/// only those formats: ZBar still reads QR and EAN. Small or off-centre symbols are read in
/// windows of the image:
/// - a still (`lookout scan`): PDF417 where rows of bars are, turned upright when they lean; then
///   the whole image, the places that look like a matrix (also at twice the size when small) and
///   windows of 2/3, 1/2 and 1/3 of its shorter side at half-window steps, within the budget;
/// - video: per frame, a window around each code read on the last frame, then the next windows of
///   a rotation (the frame at half size, then windows of 2/3, 1/2 and 1/3 of its height) up to
///   `framePixels`.
/// Used on one queue only.
final class ZXingFrameReader {
    let types: Set<MetadataObjectType>
    private let scanner: ZXingScanner
    /// A still's windows look for Aztec and DataMatrix only: the reason for windows was zxing-cpp
    /// 1.4 finding those only about the middle, while PDF417 is read over the whole still; a
    /// window's PDF417 read was wrong on an over-exposed benchmark photograph.
    private let windowScanner: ZXingScanner
    /// PDF417 where rows of bars are, each place turned upright when it leans (nil when PDF417
    /// is not wanted): zxing-cpp reads PDF417 rows only within a few degrees of level.
    private let placeScanner: ZXingScanner?
    static let placeEffort: ZXingScanner.Effort = [.thorough, .turned, .rectified]
    /// Where codes were read on the last frame (plane pixels): read first on the next.
    private var lastBoxes: [Rect] = []
    private var rotation: [lk_zx_region] = []
    private var rotationSize = (width: 0, height: 0)
    private var nextInRotation = 0
    /// The contrast-normalised copy of a still (`readFaintRows`), kept from still to still.
    private var faint: [UInt8] = []

    /// Pixels read per frame, windows around the last codes included (half a 720p frame), beyond
    /// which no further window of the rotation is added (one always is). A 720p frame's rotation
    /// then takes about 17 frames (0.6 s at 30 fps).
    static let framePixels = 480_000
    /// What a frame is read with: no inverted look (it would double the cost of a frame without
    /// a code; video's light-on-dark symbols are rare).
    static let frameEffort: ZXingScanner.Effort = [.harder, .rotated, .downscaled]
    init(types: Set<MetadataObjectType>) {
        self.types = types.filter(\.isReadByZXingOnly)
        scanner = ZXingScanner(types: self.types)
        windowScanner = ZXingScanner(types: self.types.subtracting([.pdf417]))
        placeScanner = self.types.contains(.pdf417) ? ZXingScanner(types: [.pdf417]) : nil
    }

    /// Frames read so far, and reads that failed (each skipped).
    private(set) var looks = 0
    var failures: Int { scanner.failures + windowScanner.failures + (placeScanner?.failures ?? 0) }

    /// Codes in a frame's plane (plane pixels), reading the last codes' places and the next
    /// windows of the rotation.
    func readFrame(_ pixels: PixelBuffer) -> [ScannedCode] {
        guard !types.isEmpty, pixels.width >= 16, pixels.height >= 16 else { return [] }
        if rotationSize != (pixels.width, pixels.height) {
            rotation = Self.frameRotation(width: pixels.width, height: pixels.height)
            rotationSize = (pixels.width, pixels.height)
            nextInRotation = 0
        }
        var regions = lastBoxes.map { Self.window(around: $0, width: pixels.width, height: pixels.height) }
        var pixelsTaken = regions.reduce(0) { $0 + Int($1.width * $1.height) }
        // At least one window of the rotation a frame, so a new code is found while others are read.
        let fixed = regions.count
        while pixelsTaken < Self.framePixels || regions.count == fixed, regions.count < rotation.count + fixed {
            let region = rotation[nextInRotation]
            nextInRotation = (nextInRotation + 1) % rotation.count
            regions.append(region)
            pixelsTaken += Int(region.width * region.height) / Int(region.shrink * region.shrink)
        }
        looks += 1
        let codes = scanner.scan(plane: pixels.baseAddress, width: pixels.width, height: pixels.height,
                                 bytesPerRow: pixels.bytesPerRow, regions: regions, budget: 0, effort: Self.frameEffort)
        lastBoxes = codes.map { Rect.enclosing($0.corners) }
        return codes
    }

    /// Codes in a still image (plane pixels), within `budget` milliseconds.
    func readStill(_ pixels: PixelBuffer, budget: Int) -> [ScannedCode] {
        guard !types.isEmpty, pixels.width >= 16, pixels.height >= 16 else { return [] }
        looks += 1
        let deadline = MonotonicClock.nanoseconds() + Int64(max(1, budget)) * 1_000_000
        func left() -> Int { max(1, Int((deadline - MonotonicClock.nanoseconds()) / 1_000_000)) }
        let width = pixels.width, height = pixels.height
        let shorter = min(width, height)
        var codes = [ScannedCode]()
        if let placeScanner {
            // PDF417 where rows of bars are, each place turned upright when it leans: the whole
            // picture was read as it is.
            let rows = Self.rowsPlaces(in: pixels.baseAddress, width: width, height: height, bytesPerRow: pixels.bytesPerRow)
            codes = placeScanner.scan(plane: pixels.baseAddress, width: width, height: height, bytesPerRow: pixels.bytesPerRow,
                                      regions: rows, budget: left(), effort: Self.placeEffort)
        }
        let places = Self.places(LK_ZX_PLACES_MATRIX, in: pixels.baseAddress, width: width, height: height, bytesPerRow: pixels.bytesPerRow)
        var regions = [lk_zx_region(x: 0, y: 0, width: Int32(width), height: Int32(height), shrink: 1)]
        regions += places.flatMap { place in
            // Small places again at twice the size: zxing-cpp reads few symbols of 3-4 px
            // modules once turned or blurred.
            max(place.width, place.height) <= 400 ? [place, lk_zx_region(x: place.x, y: place.y, width: place.width,
                                                                         height: place.height, shrink: -2)] : [place]
        }
        for side in [shorter * 2 / 3, shorter / 2, shorter / 3] {
            regions += Self.windows(side: side, width: width, height: height, shrink: 1)
        }
        codes.addNewSymbols(windowScanner.scan(plane: pixels.baseAddress, width: width, height: height,
                                               bytesPerRow: pixels.bytesPerRow, regions: regions, budget: left()))
        return codes
    }

    /// PDF417 in a still whose contrast is normalised first (`lk_normalize_contrast` over a
    /// window of 1/`faintShare` of its shorter side), read where rows of bars are in that copy
    /// and the picture is faint (`isFaint`): a label in the dark or in low contrast, whose bars
    /// differ by a few grey levels, has no place of rows in the picture and reads as blank to
    /// zxing-cpp's local threshold. A place of strong contrast was read in the picture already
    /// (`readStill`); in the copy, textures join into places as large as the picture, whose
    /// reading turned and stood square cost ten times the rest. Within `budget` milliseconds;
    /// nothing when PDF417 is not wanted.
    func readFaintRows(_ pixels: PixelBuffer, budget: Int) -> [ScannedCode] {
        guard let placeScanner, pixels.width >= 16, pixels.height >= 16 else { return [] }
        let width = pixels.width, height = pixels.height
        if faint.count < width * height { faint = [UInt8](repeating: 0, count: width * height) }
        let radius = max(8, min(width, height) / Self.faintShare)
        return faint.withUnsafeMutableBufferPointer { copy -> [ScannedCode] in
            guard lk_normalize_contrast(pixels.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height),
                                        Int32(pixels.bytesPerRow), Int32(radius), copy.baseAddress) == 0 else { return [] }
            let rows = Self.rowsPlaces(in: copy.baseAddress!, width: width, height: height, bytesPerRow: width)
                .filter { Self.isFaint($0, in: pixels) }
            guard !rows.isEmpty else { return [] }
            return placeScanner.scan(plane: copy.baseAddress!, width: width, height: height, bytesPerRow: width,
                                     regions: rows, budget: budget, effort: Self.placeEffort)
        }
    }

    /// `readFaintRows`' window: 1/32 of the shorter side (24 px of a 768-px picture), a few of a
    /// label's modules of 1.5 to 9 px and the ground beside them.
    static let faintShare = 32

    /// Whether the picture is faint in `place`: the middle 96 % of its grey levels (every other
    /// pixel of every other row) span fewer than 64 levels. The dark, low-contrast label only the
    /// copy reads (the development corpus's `kind-015`) spans 31; of the copy's places on 40
    /// code-free photographs, three in five span more, and those cost nine tenths of the time.
    static func isFaint(_ place: lk_zx_region, in pixels: PixelBuffer) -> Bool {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        let plane = pixels.baseAddress.assumingMemoryBound(to: UInt8.self)
        for y in stride(from: Int(place.y), to: Int(place.y + place.height), by: 2) {
            let row = plane + y * pixels.bytesPerRow
            for x in stride(from: Int(place.x), to: Int(place.x + place.width), by: 2) {
                histogram[Int(row[x])] += 1
                count += 1
            }
        }
        var seen = 0, low = 0, high = 255
        for level in 0..<256 {
            seen += histogram[level]
            if seen * 50 <= count { low = level }
            if seen * 50 < count * 49 { high = level + 1 }
        }
        return high - low < 64
    }

    /// Where rows of bars are (`lk_zx_locate`): each place alone, then the places of one leaning
    /// symbol broken into pieces (by glare) joined, since no piece holds both its start and its
    /// stop pattern.
    static func rowsPlaces(in plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int) -> [lk_zx_region] {
        [LK_ZX_PLACES_ROWS, LK_ZX_PLACES_ROWS_JOINED].flatMap {
            places($0, in: plane, width: width, height: height, bytesPerRow: bytesPerRow)
        }
    }

    /// Places in an image that look like a symbol of `kind` (`lk_zx_locate`): with cells of each of
    /// `cells` of its shorter side in turn (1/180, then 1/90: small modules), densest first in each,
    /// up to 24 of each.
    static func places(_ kind: Int, in plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int,
                       cells: [PlaceCell] = [.small, .medium]) -> [lk_zx_region] {
        let shorter = min(width, height)
        return cells.map { max($0.smallest, shorter / $0.share) }.flatMap { cell -> [lk_zx_region] in
            var found = [lk_zx_region](repeating: lk_zx_region(), count: 24)
            let count = found.withUnsafeMutableBufferPointer {
                lk_zx_locate(plane.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(bytesPerRow),
                             Int32(cell), Int32(kind), $0.baseAddress, Int32($0.count))
            }
            return Array(found.prefix(Int(max(0, count))))
        }
    }

    /// A size of `lk_zx_locate`'s cells: a share of the image's shorter side, at least `smallest`
    /// pixels. A cell must hold a few modules for their transitions to show.
    struct PlaceCell {
        let share: Int
        let smallest: Int
        static let small = PlaceCell(share: 180, smallest: 6)
        static let medium = PlaceCell(share: 90, smallest: 12)
        /// Modules of 5 to 8 px in a 2-megapixel photograph: a label round a can (`CylinderView`);
        /// also a defocused matrix symbol (`StillCodeReader.deconvolvedMatrixPlaces`).
        static let large = PlaceCell(share: 45, smallest: 24)
    }

    /// The frame at half size, then square windows of 2/3, 1/2 and 1/3 of its height: a symbol
    /// is read in a window about twice its size whose middle lines cross it (the smallest
    /// windows' middle lines lie 1/6 of the height apart).
    static func frameRotation(width: Int, height: Int) -> [lk_zx_region] {
        let whole = lk_zx_region(x: 0, y: 0, width: Int32(width), height: Int32(height), shrink: width >= 960 ? 2 : 1)
        let sides = [height * 2 / 3, height / 2, height / 3]
        return [whole] + sides.flatMap { (side: Int) -> [lk_zx_region] in windows(side: side, width: width, height: height, shrink: 1) }
    }

    /// Square windows of `side` at half-window steps covering the image, the last row and column
    /// flush with its edges.
    static func windows(side: Int, width: Int, height: Int, shrink: Int32) -> [lk_zx_region] {
        guard side >= 64 else { return [] }
        func starts(_ length: Int) -> [Int] {
            guard length > side else { return [0] }
            var positions = Array(stride(from: 0, to: length - side, by: side / 2))
            positions.append(length - side)
            return positions
        }
        let w = min(side, width), h = min(side, height)
        return starts(height).flatMap { y in
            starts(width).map { x in lk_zx_region(x: Int32(x), y: Int32(y), width: Int32(w), height: Int32(h), shrink: shrink) }
        }
    }

    /// A window centred on a code's box, half as large again in each direction (at least 96
    /// pixels), inside the image: room for the code to move by a quarter of its size a frame.
    static func window(around box: Rect, width: Int, height: Int) -> lk_zx_region {
        let w = min(Double(width), max(96, 1.5 * box.width)), h = min(Double(height), max(96, 1.5 * box.height))
        let x = max(0, min(Double(width) - w, box.midX - w / 2)), y = max(0, min(Double(height) - h, box.midY - h / 2))
        return lk_zx_region(x: Int32(x), y: Int32(y), width: Int32(w), height: Int32(h), shrink: 1)
    }
}
