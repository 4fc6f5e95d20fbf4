import COpenCV
import CZBar

/// One symbol ZBar found, in the scanned image's pixel coordinates.
struct ScannedCode {
    var type: MetadataObjectType
    var payload: [UInt8]
    var corners: [Point]
    var decoder: CodeDecoder = .zbar
    /// For a linear code ZBar read, how many scan lines agreed on it (ZBar's quality); 0 otherwise.
    var scanLines = 0

    /// A linear code crossed by this few scan lines may be a misread: patterns in a texture, or a
    /// blurred symbol, can pass EAN's check digit (seen on the development corpus at 6 lines,
    /// while real codes read with as few as 4). Such reads are reported only when confirmed.
    static let confidentScanLines = 10

    var needsConfirmation: Bool { type != .qr && decoder == .zbar && scanLines < Self.confidentScanLines }
}

/// ZBar's image scanner, created once and reused for frame after frame (creating one per frame
/// costs more than many scans). Configured for exact bytes: QR payloads are not re-encoded by ZBar.
///
/// ZBar 0.23 keeps memory inside the scanner for every QR code it decodes (about 70 bytes a frame
/// with a code in view, measured with the bare library too), and gives it back only when the
/// scanner is destroyed; so the scanner is made afresh every `renewalInterval` scans, which keeps
/// a long run's memory flat at a negligible cost.
final class BarcodeScanner {
    static let renewalInterval = 1000

    private var scanner: OpaquePointer
    private var image: OpaquePointer
    private var scansSinceRenewal = 0
    /// The half-size plane for `.half` resolution, allocated once per frame size.
    private var halfPlane: [UInt8] = []
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
        (scanner, image) = Self.make(types: types, density: self.density)
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

    deinit {
        Self.destroy(scanner: scanner, image: image)
    }

    /// Scans the luma plane, limited to `region` (pixels); codes come back in the plane's pixels
    /// whatever the resolution. At full resolution the plane must be tightly packed.
    /// - Parameter planeIsHalfSize: the plane is already the frame at half size (decoded so), and
    ///   is scanned as it is at `.half` resolution.
    func scan(_ pixels: PixelBuffer, region: (x: Int, y: Int, width: Int, height: Int),
              planeIsHalfSize: Bool = false) -> [ScannedCode] {
        guard resolution.readsHalfSize(frameWidth: pixels.width), !planeIsHalfSize, pixels.width >= 2, pixels.height >= 2 else {
            precondition(pixels.bytesPerRow == pixels.width, "ZBar reads tightly packed planes")
            return scan(plane: pixels.baseAddress, width: pixels.width, height: pixels.height, region: region, scale: 1)
        }
        let width = pixels.width / 2, height = pixels.height / 2
        if halfPlane.count != width * height { halfPlane = Array(repeating: 0, count: width * height) }
        halfPlane.withUnsafeMutableBufferPointer { half in
            lk_half_scale(pixels.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(pixels.width), Int32(pixels.height),
                          Int32(pixels.bytesPerRow), half.baseAddress!)
        }
        let halfRegion = (x: region.x / 2, y: region.y / 2,
                          width: max(1, min(width - region.x / 2, (region.width + 1) / 2)),
                          height: max(1, min(height - region.y / 2, (region.height + 1) / 2)))
        return halfPlane.withUnsafeBytes { half in
            scan(plane: half.baseAddress!, width: width, height: height, region: halfRegion, scale: 2)
        }
    }

    /// Scans a tightly packed plane; corners are multiplied by `scale`.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int,
                      region: (x: Int, y: Int, width: Int, height: Int), scale: Double) -> [ScannedCode] {
        scansSinceRenewal += 1
        if scansSinceRenewal >= Self.renewalInterval {
            Self.destroy(scanner: scanner, image: image)
            (scanner, image) = Self.make(types: types, density: density)
            scansSinceRenewal = 0
        }
        zbar_image_scanner_recycle_image(scanner, image)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        zbar_image_set_crop(image, UInt32(region.x), UInt32(region.y), UInt32(region.width), UInt32(region.height))
        zbar_image_set_data(image, plane, UInt(width * height), nil)
        let found = zbar_scan_image(scanner, image)
        guard found > 0 else {
            zbar_image_set_data(image, nil, 0, nil)
            return []
        }
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
            let maxX = Double(width), maxY = Double(height), factor = scale
            for i in 0..<pointCount {
                corners.append(Point(x: min(max(0, Double(zbar_symbol_get_loc_x(current, i))), maxX) * factor,
                                     y: min(max(0, Double(zbar_symbol_get_loc_y(current, i))), maxY) * factor))
            }
            // Linear codes come back as the points where scan lines crossed them; report the four
            // corners of the area they cover, as AVFoundation does for every code.
            if type != .qr, corners.count != 4 {
                let box = Rect.enclosing(corners)
                corners = [Point(x: box.x, y: box.y), Point(x: box.x, y: box.maxY),
                           Point(x: box.maxX, y: box.maxY), Point(x: box.maxX, y: box.y)]
            }
            codes.append(ScannedCode(type: type, payload: payload, corners: corners,
                                     scanLines: type == .qr ? 0 : Int(zbar_symbol_get_quality(current))))
        }
        // The frame's memory goes back to its pool; ZBar must not keep a pointer to it.
        zbar_image_set_data(image, nil, 0, nil)
        return codes
    }
}
