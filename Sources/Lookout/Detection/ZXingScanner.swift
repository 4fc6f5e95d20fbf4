import CZXing

/// zxing-cpp 3 (linked in; CZXing), reading every code of the wanted types in an image or in
/// regions of it, in this process. Reuses its result buffers from call to call: one caller at a
/// time.
final class ZXingScanner {
    /// How hard zxing-cpp looks (its ReaderOptions).
    struct Effort: OptionSet {
        let rawValue: Int32
        /// More scan lines and the binarizers' second chances.
        static let harder = Effort(rawValue: Int32(LK_ZX_TRY_HARDER))
        /// Linear codes turned by 90 degrees.
        static let rotated = Effort(rawValue: Int32(LK_ZX_TRY_ROTATE))
        /// Light symbols on dark ground.
        static let inverted = Effort(rawValue: Int32(LK_ZX_TRY_INVERT))
        /// Also at reduced scales: large symbols in large images.
        static let downscaled = Effort(rawValue: Int32(LK_ZX_TRY_DOWNSCALE))
        /// A region that gave nothing, again turned upright by its edges' lean (PDF417 rows at
        /// an angle, which zxing-cpp reads only within a few degrees of level). For small regions:
        /// it copies each.
        static let turned = Effort(rawValue: Int32(LK_ZX_TRY_TURN))
        /// A region that still gave nothing, again with its symbol stood square: the outline of
        /// its dense edges as a rectangle at its angle, then as perspective left its corners
        /// (PDF417 sheared or seen at a slant, whose bars and rows no longer meet square).
        static let rectified = Effort(rawValue: Int32(LK_ZX_TRY_RECTIFY))
        /// One threshold for the whole image (zxing-cpp's GlobalHistogram binarizer) instead of
        /// local averages: modules a local average loses in a blurred, evenly lit picture.
        static let globalThreshold = Effort(rawValue: Int32(LK_ZX_GLOBAL_THRESHOLD))
        /// The image is black and white already (0 black, anything else white): zxing-cpp sets
        /// no threshold of its own (`UndecodedSymbolReader`'s copies).
        static let binary = Effort(rawValue: Int32(LK_ZX_BINARY))
        /// A still image: everything but turned copies.
        static let thorough: Effort = [.harder, .rotated, .inverted, .downscaled]
    }

    /// The zxing-cpp version linked in.
    static var version: String { String(cString: lk_zx_version()) }

    let types: Set<MetadataObjectType>
    private let formats: Int32
    private var found = [lk_zx_code](repeating: lk_zx_code(), count: 256)
    private var bytes = [UInt8](repeating: 0, count: 256 * 1024)

    init(types: Set<MetadataObjectType>) {
        self.types = types
        // UPC-E is read beside EAN-13, whose left half can pass for a UPC-E symbol (`codes`).
        let beside = types.contains(.upcE) ? Int32(LK_ZX_EAN13) : 0
        formats = types.reduce(beside) { $0 | (Self.format(of: $1) ?? 0) }
    }

    /// The ZXing format bit for a type ZXing reads. ISBNs are EAN-13 symbols.
    static func format(of type: MetadataObjectType) -> Int32? {
        switch type {
        case .qr: Int32(LK_ZX_QR)
        case .ean13, .isbn10, .isbn13: Int32(LK_ZX_EAN13)
        case .ean8: Int32(LK_ZX_EAN8)
        case .upcA: Int32(LK_ZX_UPCA)
        case .upcE: Int32(LK_ZX_UPCE)
        case .interleaved2of5: Int32(LK_ZX_ITF)
        case .dataBar: Int32(LK_ZX_DATABAR)
        case .dataBarExpanded: Int32(LK_ZX_DATABAR_EXPANDED)
        case .codabar: Int32(LK_ZX_CODABAR)
        case .code39: Int32(LK_ZX_CODE39)
        case .code93: Int32(LK_ZX_CODE93)
        case .code128: Int32(LK_ZX_CODE128)
        case .pdf417: Int32(LK_ZX_PDF417)
        case .aztec: Int32(LK_ZX_AZTEC)
        case .dataMatrix: Int32(LK_ZX_DATAMATRIX)
        default: nil
        }
    }

    var readsAnything: Bool { formats != 0 }

    /// Reads that failed (zxing-cpp threw: out of memory); each costs that image only.
    private(set) var failures = 0

    /// Codes in a whole plane (any stride), corners in the plane's pixels times `scale`.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, scale: Double = 1,
              effort: Effort = .thorough) -> [ScannedCode] {
        scan(plane: plane, width: width, height: height, bytesPerRow: bytesPerRow, scale: scale,
             regions: [lk_zx_region(x: 0, y: 0, width: Int32(width), height: Int32(height), shrink: 1)], budget: 0,
             effort: effort)
    }

    /// Codes in `regions` of a plane, read in turn until `budget` milliseconds have passed between
    /// two regions (0: no limit); a code read again where an earlier region read it counts once.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, scale: Double = 1,
              regions: [lk_zx_region], budget: Int, effort: Effort = .thorough) -> [ScannedCode] {
        guard formats != 0, width > 0, height > 0, !regions.isEmpty else { return [] }
        let gray = plane.assumingMemoryBound(to: UInt8.self)
        let count = found.withUnsafeMutableBufferPointer { found in
            bytes.withUnsafeMutableBufferPointer { bytes in
                regions.withUnsafeBufferPointer { regions in
                    lk_zx_read(gray, Int32(width), Int32(height), Int32(bytesPerRow), formats, effort.rawValue,
                               regions.baseAddress, Int32(regions.count), Int32(min(budget, 600_000)),
                               found.baseAddress, Int32(found.count), bytes.baseAddress, Int32(bytes.count))
                }
            }
        }
        return codes(count: count, width: width, height: height, scale: scale)
    }

    /// QR codes in a whole plane that lost one finder pattern (`lk_zx_read_repaired`), but those
    /// whose centre lies in a code of `known`; corners in the plane's pixels. Until `budget`
    /// milliseconds have passed between two tries.
    func scanRepaired(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, known: [ScannedCode],
                      budget: Int) -> [ScannedCode] {
        guard formats & Int32(LK_ZX_QR) != 0, width > 0, height > 0 else { return [] }
        let quads = known.filter { $0.corners.count == 4 }.flatMap { code in
            code.corners.flatMap { [Int32($0.x.rounded()), Int32($0.y.rounded())] }
        }
        let count = found.withUnsafeMutableBufferPointer { found in
            bytes.withUnsafeMutableBufferPointer { bytes in
                lk_zx_read_repaired(plane.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(bytesPerRow),
                                    Effort.harder.rawValue, quads, Int32(quads.count / 8), Int32(min(budget, 600_000)),
                                    found.baseAddress, Int32(found.count), bytes.baseAddress, Int32(bytes.count))
            }
        }
        return codes(count: count, width: width, height: height, scale: 1)
    }

    /// A symbol zxing-cpp found but could not decode: its corners (top-left, top-right,
    /// bottom-right, bottom-left as it reads) in the plane's pixels, and its type.
    struct UndecodedSymbol {
        var corners: [Point]
        var type: MetadataObjectType
    }

    /// QR, Aztec, DataMatrix and PDF417 symbols of the wanted types that zxing-cpp finds in a
    /// plane but cannot decode (`lk_zx_find_undecoded`): the DataMatrix and QR symbols that
    /// erasures restore, read, and the places of the others.
    func undecoded(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int)
        -> (places: [UndecodedSymbol], restored: [ScannedCode]) {
        let wanted = formats & Int32(LK_ZX_QR | LK_ZX_AZTEC | LK_ZX_DATAMATRIX | LK_ZX_PDF417)
        guard wanted != 0, width > 0, height > 0 else { return ([], []) }
        let capacity = 64
        var quads = [Int32](repeating: 0, count: 8 * capacity)
        var kinds = [Int32](repeating: 0, count: capacity)
        var restoredCount: Int32 = 0
        let count = found.withUnsafeMutableBufferPointer { found in
            bytes.withUnsafeMutableBufferPointer { bytes in
                lk_zx_find_undecoded(plane.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height),
                                     Int32(bytesPerRow), wanted, &quads, &kinds, Int32(capacity),
                                     found.baseAddress, Int32(found.count), &restoredCount, bytes.baseAddress, Int32(bytes.count))
            }
        }
        if count < 0 { failures += 1 }
        let restored = codes(count: restoredCount, width: width, height: height, scale: 1)
        let places: [UndecodedSymbol] = (0..<max(0, Int(count))).compactMap { symbol in
            let type: MetadataObjectType
            switch kinds[symbol] {
            case Int32(LK_ZX_QR): type = .qr
            case Int32(LK_ZX_AZTEC): type = .aztec
            case Int32(LK_ZX_DATAMATRIX): type = .dataMatrix
            case Int32(LK_ZX_PDF417): type = .pdf417
            default: return nil
            }
            let corners = (0..<4).map { Point(x: Double(quads[8 * symbol + 2 * $0]), y: Double(quads[8 * symbol + 2 * $0 + 1])) }
            return UndecodedSymbol(corners: corners, type: type)
        }
        return (places, restored)
    }

    /// The first `count` codes zxing-cpp wrote, as scanned codes.
    private func codes(count: Int32, width: Int, height: Int, scale: Double) -> [ScannedCode] {
        if count < 0 { failures += 1 }
        guard count > 0 else { return [] }
        var codes = [ScannedCode]()
        codes.reserveCapacity(Int(count))
        let read = found.prefix(Int(count))
        // An EAN-13's left half, its centre guard and the first bar after it have UPC-E's shape,
        // and the half's parity pattern passes UPC-E's check as often as not: a UPC-E read of an
        // EAN-13's 2nd to 7th digits, where that EAN-13 is read too, is that half. (Along the rows
        // of a leaning symbol, a half is crossed alone: no quiet zone test along the row tells it.)
        let leftHalves = !types.contains(.upcE) ? [] : read.filter { $0.format == Int32(LK_ZX_EAN13) && $0.length == 13 }.map {
            bytes[Int($0.offset) + 1..<Int($0.offset) + 7]
        }
        for var code in read {
            var payload = Array(bytes[Int(code.offset)..<Int(code.offset + code.length)])
            guard let type = type(of: code.format, payload: &payload) else { continue }
            if type == .upcE, payload.count == 8, leftHalves.contains(where: { $0.elementsEqual(payload[1..<7]) }) { continue }
            let xs = [code.x.0, code.x.1, code.x.2, code.x.3], ys = [code.y.0, code.y.1, code.y.2, code.y.3]
            let corners = (0..<4).map {
                Point(x: min(max(0, Double(xs[$0])), Double(width)) * scale, y: min(max(0, Double(ys[$0])), Double(height)) * scale)
            }
            let aim = withUnsafeBytes(of: &code.aim) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let scanned = ScannedCode(type: type, payload: payload, corners: corners, decoder: .zxing,
                                      symbologyIdentifier: aim.isEmpty ? nil : aim)
            // UPC-E's check is only the parity pattern of its six digits: small symbols were read
            // as other digits that passed it, where ZBar or a copy read them right.
            codes.append(type == .upcE ? scanned.toBeConfirmed() : scanned)
        }
        return codes
    }

    /// The wanted type a ZXing format is reported as, as ZBar reports it: a UPC-A symbol as UPC-A
    /// (12 digits) when UPC-A is asked for, else as EAN-13 with a leading 0 (zxing-cpp 3 gives
    /// either, as it reads the symbol); books' EAN-13 as the ISBN asked for; a UPC-E symbol as its
    /// own 8 digits (zxing-cpp 3 gives its UPC-A's 13).
    private func type(of format: Int32, payload: inout [UInt8]) -> MetadataObjectType? {
        let zero = UInt8(ascii: "0")
        switch format {
        case Int32(LK_ZX_QR): return .qr
        case Int32(LK_ZX_EAN13), Int32(LK_ZX_UPCA):
            if format == Int32(LK_ZX_UPCA), payload.count == 12 { payload.insert(zero, at: 0) }
            return Self.type(ofEAN13: &payload, wanted: types)
        case Int32(LK_ZX_UPCE):
            if payload.count == 13, payload.first == zero, let upcE = GS1Data.compressUPCE(Array(payload.dropFirst())) {
                payload = upcE
            }
            return types.contains(.upcE) ? .upcE : nil
        default:
            return types.first { Self.format(of: $0) == format }
        }
    }

    /// The wanted type an EAN-13 symbol (13 digits) is reported as, as Debian's ZBar 0.23.92
    /// reports it: UPC-A (its 12 digits) when it starts with 0 and UPC-A is asked for; a book's
    /// (978 or 979) as ISBN-13 when asked for; a book's (978) as ISBN-10 (its 10 characters) when
    /// asked for; else EAN-13; nil when none of these is asked for.
    static func type(ofEAN13 payload: inout [UInt8], wanted types: Set<MetadataObjectType>) -> MetadataObjectType? {
        let zero = UInt8(ascii: "0")
        if types.contains(.upcA), payload.count == 13, payload.first == zero {
            payload.removeFirst()
            return .upcA
        }
        let isBook = payload.count == 13 && payload.starts(with: "97".utf8)
        if types.contains(.isbn13), isBook, payload[2] == UInt8(ascii: "8") || payload[2] == UInt8(ascii: "9") { return .isbn13 }
        if types.contains(.isbn10), isBook, payload[2] == UInt8(ascii: "8"), let isbn = GS1Data.isbn10(ofEAN13: payload) {
            payload = isbn
            return .isbn10
        }
        return types.contains(.ean13) ? .ean13 : nil
    }
}
