import CPlanes
import CZBar

/// A rectangle of a plane, in its pixels.
typealias PlaneRegion = (x: Int, y: Int, width: Int, height: Int)

/// One symbol ZBar found, in the scanned image's pixel coordinates.
struct ScannedCode {
    var type: MetadataObjectType
    var payload: [UInt8]
    var corners: [Point]
    var decoder: CodeDecoder = .zbar
    /// For a linear code ZBar read, how many scan lines agreed on it (ZBar's quality); 0 otherwise.
    var scanLines = 0
    /// The AIM symbology identifier the decoder gave (`]Q1`, `]E0`, `]d2`...), or nil when it gave
    /// none (then it is told from the type and the symbol's modifiers).
    var symbologyIdentifier: String? = nil

    /// A linear code crossed by this few scan lines may be a misread: patterns in a texture, or a
    /// blurred symbol, can pass EAN's check digit (seen on the development corpus at 6 lines,
    /// while real codes read with as few as 4). Such reads are reported only when confirmed.
    static let confidentScanLines = 10

    /// Set on a read that one prepared copy alone gave, of a type whose check a sharpened edge can fool.
    private(set) var isUnsure = false

    /// Set on a read another decoder gave alike.
    private(set) var isConfirmed = false

    var needsConfirmation: Bool {
        !isConfirmed && (isUnsure || (type != .qr && decoder == .zbar && scanLines < Self.confidentScanLines))
    }

    /// This read, reported only when another reading of its place confirms it.
    func toBeConfirmed() -> ScannedCode {
        var unsure = self
        unsure.isUnsure = true
        unsure.isConfirmed = false
        return unsure
    }

    /// This read, confirmed by another reading of its place.
    func confirmed() -> ScannedCode {
        var sure = self
        sure.isConfirmed = true
        return sure
    }
}

/// ZBar's image scanner, configured for exact bytes: QR payloads are not re-encoded by ZBar.
///
/// ZBar's scanner exists only while it scans (made and destroyed in a few microseconds). Its
/// decoders keep what they read between scan lines, so that one line's half of an EAN symbol
/// completes another's; but a new image does not clear it. A reused scanner read the left half of
/// one product and the right half of the one scanned before as a symbol whose check digit held
/// (one such join in ten passes it), on 13 scan lines. ZBar 0.23 also keeps memory for every QR
/// code it decodes (about 70 bytes) until its scanner is destroyed.
final class BarcodeScanner {
    /// The half-size plane for `.half` resolution, allocated once per frame size.
    private var halfPlane: [UInt8] = []
    /// The copy of a window (`scan(_:window:region:planeIsHalfSize:)`), grown to the largest yet.
    private var windowPlane: [UInt8] = []
    let types: Set<MetadataObjectType>
    let density: Int
    let resolution: CodeScanResolution

    /// - Parameters:
    ///   - density: ZBar's x/y scan density: 1 scans every line; higher is faster and may miss
    ///     small or thin codes.
    ///   - resolution: `.half` scans a 2x2-averaged copy: a quarter of the work, for codes whose
    ///     bars and modules are at least 2 pixels wide.
    init(types: Set<MetadataObjectType>, density: Int = 1, resolution: CodeScanResolution = .full) {
        self.types = types
        self.density = max(1, density)
        self.resolution = resolution
    }

    private static func make(types: Set<MetadataObjectType>, density: Int) -> (scanner: OpaquePointer, image: OpaquePointer) {
        let scanner = zbar_image_scanner_create()!
        let image = zbar_image_create()!
        zbar_image_set_format(image, LK_ZBAR_FOURCC_Y800)
        // Everything off, then the requested symbologies on.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for type in types {
            guard let symbol = type.zbarSymbolType else { continue }
            zbar_image_scanner_set_config(scanner, symbol, ZBAR_CFG_ENABLE, 1)
        }
        // ISBN and UPC types are views of EAN-13 in ZBar: it needs EAN-13 decoding on to find them.
        if !types.isDisjoint(with: [.isbn10, .isbn13, .upcA]) {
            zbar_image_scanner_set_config(scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, 1)
        }
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(density))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density))
        // Every analysed frame reports what it holds; de-duplication belongs to the event layer.
        zbar_image_scanner_enable_cache(scanner, 0)
        return (scanner, image)
    }

    private static func destroy(scanner: OpaquePointer, image: OpaquePointer) {
        zbar_image_scanner_recycle_image(scanner, image)
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// Scans the luma plane, limited to `region` (pixels); codes come back in the plane's pixels
    /// whatever the resolution. At full resolution the plane must be tightly packed.
    /// - Parameter planeIsHalfSize: the plane is already the frame at half size (decoded so), and
    ///   is scanned as it is at `.half` resolution.
    func scan(_ pixels: PixelBuffer, region: PlaneRegion, planeIsHalfSize: Bool = false) -> [ScannedCode] {
        guard halves(pixels, planeIsHalfSize: planeIsHalfSize) else {
            precondition(pixels.bytesPerRow == pixels.width, "ZBar reads tightly packed planes")
            return scan(plane: pixels.baseAddress, width: pixels.width, height: pixels.height, region: region, scale: 1)
        }
        let width = pixels.width / 2, height = pixels.height / 2
        if halfPlane.count != width * height { halfPlane = Array(repeating: 0, count: width * height) }
        halfPlane.withUnsafeMutableBufferPointer { half in
            lk_half_scale(pixels.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(pixels.width), Int32(pixels.height),
                          Int32(pixels.bytesPerRow), half.baseAddress!)
        }
        return halfPlane.withUnsafeBytes { half in
            scan(plane: half.baseAddress!, width: width, height: height, region: Self.halved(region, width: width, height: height),
                 scale: 2)
        }
    }

    /// Scans one window of the plane (its pixels) within `region`, and reads what a scan of the
    /// whole region reads there: the window is grown to the region's scan lines (`aligned`) and
    /// copied (halved at `.half` resolution) into a scratch image of its own size, kept from scan
    /// to scan. A copy, not a crop of the plane: QR's binarisation covers the whole image ZBar is
    /// given. Codes come back in the plane's pixels. Nil when the window misses the region.
    func scan(_ pixels: PixelBuffer, window: PlaneRegion, region: PlaneRegion, planeIsHalfSize: Bool = false) -> [ScannedCode]? {
        let halving = halves(pixels, planeIsHalfSize: planeIsHalfSize)
        let factor = halving ? 2 : 1
        let (width, height) = (pixels.width / factor, pixels.height / factor)
        let scanned = halving ? Self.halved(region, width: width, height: height) : region
        // The window in the scanned image's pixels, outward.
        let left = window.x / factor, top = window.y / factor
        let inScanned = (x: left, y: top, width: (window.x + window.width + factor - 1) / factor - left,
                         height: (window.y + window.height + factor - 1) / factor - top)
        guard let box = Self.aligned(inScanned, to: scanned, density: density) else { return nil }
        if windowPlane.count < box.width * box.height { windowPlane = Array(repeating: 0, count: box.width * box.height) }
        windowPlane.withUnsafeMutableBufferPointer { copy in
            let target = copy.baseAddress!
            let source = pixels.baseAddress.assumingMemoryBound(to: UInt8.self)
            if halving {
                lk_half_scale(source + 2 * box.y * pixels.bytesPerRow + 2 * box.x, Int32(2 * box.width), Int32(2 * box.height),
                              Int32(pixels.bytesPerRow), target)
            } else {
                for row in 0..<box.height {
                    (target + row * box.width).update(from: source + (box.y + row) * pixels.bytesPerRow + box.x, count: box.width)
                }
            }
        }
        return windowPlane.withUnsafeBytes { copy in
            scan(plane: copy.baseAddress!, width: box.width, height: box.height, region: (0, 0, box.width, box.height),
                 scale: Double(factor), origin: (box.x, box.y), bounds: (width, height))
        }
    }

    /// Whether the plane is halved before ZBar reads it.
    private func halves(_ pixels: PixelBuffer, planeIsHalfSize: Bool) -> Bool {
        resolution.readsHalfSize(frameWidth: pixels.width) && !planeIsHalfSize && pixels.width >= 2 && pixels.height >= 2
    }

    /// A plane region in the plane halved to `width` x `height`.
    private static func halved(_ region: PlaneRegion, width: Int, height: Int) -> PlaneRegion {
        (x: region.x / 2, y: region.y / 2, width: max(1, min(width - region.x / 2, (region.width + 1) / 2)),
         height: max(1, min(height - region.y / 2, (region.height + 1) / 2)))
    }

    /// `window` clipped to `region` and grown to the lines ZBar scans there. ZBar scans every
    /// `density`th row and column from an offset set by the crop's size modulo `density`, in
    /// alternate directions; a window whose origin lies a multiple of 2 x `density` from the
    /// region's, and whose size matches the region's modulo `density`, is crossed by the same
    /// lines in the same directions as the whole region. Nil when the window misses the region.
    static func aligned(_ window: PlaneRegion, to region: PlaneRegion, density: Int) -> PlaneRegion? {
        let step = 2 * max(1, density)
        func axis(_ start: Int, _ length: Int, _ regionStart: Int, _ regionLength: Int) -> (Int, Int)? {
            let end = min(start + length, regionStart + regionLength)
            let clippedStart = max(start, regionStart)
            guard end > clippedStart else { return nil }
            let alignedStart = regionStart + (clippedStart - regionStart) / step * step
            var alignedLength = end - alignedStart
            // Up to the region's size modulo density: never past the region's end, which has it.
            alignedLength += ((regionLength - alignedLength) % density + density) % density
            return (alignedStart, min(alignedLength, regionStart + regionLength - alignedStart))
        }
        guard let (x, width) = axis(window.x, window.width, region.x, region.width),
              let (y, height) = axis(window.y, window.height, region.y, region.height) else { return nil }
        return (x, y, width, height)
    }

    /// Scans a tightly packed plane; corners are moved by `origin` (where the plane lies in a
    /// larger image of `bounds`, by default the plane itself), then multiplied by `scale`.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int, region: PlaneRegion, scale: Double,
              origin: (x: Int, y: Int) = (0, 0), bounds: (width: Int, height: Int)? = nil) -> [ScannedCode] {
        let (scanner, image) = Self.make(types: types, density: density)
        // Destroyed with the scan: ZBar keeps no pointer to the frame, whose memory goes back to its pool.
        defer { Self.destroy(scanner: scanner, image: image) }
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        zbar_image_set_crop(image, UInt32(region.x), UInt32(region.y), UInt32(region.width), UInt32(region.height))
        zbar_image_set_data(image, plane, UInt(width * height), nil)
        let found = zbar_scan_image(scanner, image)
        guard found > 0 else { return [] }
        var codes = [ScannedCode]()
        var symbol = zbar_image_first_symbol(image)
        while let current = symbol {
            defer { symbol = zbar_symbol_next(current) }
            let zbarType = zbar_symbol_get_type(current)
            guard var type = MetadataObjectType(zbarSymbolType: zbarType) else { continue }
            // With UPC-A off, ZBar reports UPC-A symbols as EAN-13 with a leading 0, as zbarcam does.
            if !types.contains(type), type == .upcA || type == .isbn10 || type == .isbn13 { type = .ean13 }
            guard types.contains(type) else { continue }
            let length = Int(zbar_symbol_get_data_length(current))
            let payload: [UInt8]
            if length > 0, let data = zbar_symbol_get_data(current) {
                payload = Array(UnsafeRawBufferPointer(start: data, count: length))
            } else {
                payload = []
            }
            let pointCount = zbar_symbol_get_loc_size(current)
            var corners = [Point]()
            corners.reserveCapacity(Int(pointCount))
            // ZBar extrapolates corners past the edge when a code fills the frame; keep them in it.
            let maxX = Double(bounds?.width ?? width), maxY = Double(bounds?.height ?? height), factor = scale
            let (dx, dy) = (Double(origin.x), Double(origin.y))
            for i in 0..<pointCount {
                corners.append(Point(x: min(max(0, Double(zbar_symbol_get_loc_x(current, i)) + dx), maxX) * factor,
                                     y: min(max(0, Double(zbar_symbol_get_loc_y(current, i)) + dy), maxY) * factor))
            }
            // Linear codes come back as the points where scan lines crossed them; report the four
            // corners of the area they cover, as AVFoundation does for every code.
            if type != .qr, corners.count != 4 {
                let box = Rect.enclosing(corners)
                corners = [Point(x: box.x, y: box.y), Point(x: box.x, y: box.maxY),
                           Point(x: box.maxX, y: box.maxY), Point(x: box.maxX, y: box.y)]
            }
            // ZBar's modifier flags say whether an FNC1 came first (GS1) or second (AIM).
            let modifiers = zbar_symbol_get_modifiers(current)
            let identifier = SymbologyIdentifier.zbar(type, gs1: modifiers & (1 << ZBAR_MOD_GS1.rawValue) != 0,
                                                      aim: modifiers & (1 << ZBAR_MOD_AIM.rawValue) != 0)
            codes.append(ScannedCode(type: type, payload: payload, corners: corners,
                                     scanLines: type == .qr ? 0 : Int(zbar_symbol_get_quality(current)),
                                     symbologyIdentifier: identifier))
        }
        return codes
    }
}
