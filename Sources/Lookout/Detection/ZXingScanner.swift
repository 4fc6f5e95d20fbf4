import CZXing

/// zxing-cpp's reader (libzxing), trying harder and rotated, through the C API in CZXing: the
/// second decoder, for images ZBar read nothing in. Reuses its result buffers from call to call.
final class ZXingScanner {
    let types: Set<MetadataObjectType>
    private let formats: Int32
    private var found = [lk_zx_code](repeating: lk_zx_code(), count: 16)
    private var bytes = [UInt8](repeating: 0, count: 16 * 4096)
    private var message = [CChar](repeating: 0, count: 256)
    /// Looks without a worker of the caller's go to one of this scanner's own, kept between looks
    /// (started at the first), rather than to a helper process per look, whose start would take a
    /// video frame's budget; nil when not kept.
    private let keepsWorker: Bool
    private var ownWorker: OpaquePointer?

    init(types: Set<MetadataObjectType>, keepsWorker: Bool = false) {
        self.types = types
        self.keepsWorker = keepsWorker
        formats = types.reduce(0) { $0 | (Self.format(of: $1) ?? 0) }
    }

    deinit {
        if let ownWorker { lk_zx_worker_destroy(ownWorker) }
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

    /// Images the reader died on (an assertion in the library), or ran out of time on.
    private(set) var failures = 0

    /// Codes in a plane (any stride), corners in the plane's pixels times `scale`. The reader runs
    /// in a helper process (this scanner's worker when it keeps one, else one for this look; see
    /// lk_zxing_read_isolated), killed after `timeout` milliseconds.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, scale: Double = 1,
              timeout: Int) -> [ScannedCode] {
        if keepsWorker, ownWorker == nil { ownWorker = lk_zx_worker_create() }
        return scan(plane: plane, width: width, height: height, bytesPerRow: bytesPerRow, scale: scale,
                    regions: [lk_zx_region(x: 0, y: 0, width: Int32(width), height: Int32(height), shrink: 1)], budget: 0,
                    timeout: timeout, worker: ownWorker)
    }

    /// Codes in `regions` of a plane, read in turn until `budget` milliseconds have passed (0: no
    /// limit), in `worker` when given, else in a helper process of its own; the reader is killed after
    /// `timeout` milliseconds.
    func scan(plane: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, scale: Double = 1,
              regions: [lk_zx_region], budget: Int, timeout: Int, worker: OpaquePointer?) -> [ScannedCode] {
        guard formats != 0, width > 0, height > 0, timeout > 0, !regions.isEmpty else { return [] }
        let gray = plane.assumingMemoryBound(to: UInt8.self)
        let count = found.withUnsafeMutableBufferPointer { found in
            bytes.withUnsafeMutableBufferPointer { bytes in
                regions.withUnsafeBufferPointer { regions in
                    let timeout = Int32(min(timeout, 60_000)), budget = Int32(min(budget, 60_000))
                    if let worker {
                        return lk_zx_worker_read(worker, gray, Int32(width), Int32(height), Int32(bytesPerRow), formats,
                                                 regions.baseAddress, Int32(regions.count), budget, found.baseAddress,
                                                 Int32(found.count), bytes.baseAddress, Int32(bytes.count), timeout, &message,
                                                 message.count)
                    }
                    return lk_zxing_read_regions_isolated(gray, Int32(width), Int32(height), Int32(bytesPerRow), formats,
                                                          regions.baseAddress, Int32(regions.count), budget, found.baseAddress,
                                                          Int32(found.count), bytes.baseAddress, Int32(bytes.count), timeout,
                                                          &message, message.count)
                }
            }
        }
        if count < 0 { failures += 1 }
        guard count > 0 else { return [] }
        var codes = [ScannedCode]()
        for code in found.prefix(Int(count)) {
            guard let type = type(of: code.format) else { continue }
            let payload = Array(bytes[Int(code.offset)..<Int(code.offset + code.length)])
            let xs = [code.x.0, code.x.1, code.x.2, code.x.3], ys = [code.y.0, code.y.1, code.y.2, code.y.3]
            let corners = (0..<4).map {
                Point(x: min(max(0, Double(xs[$0])), Double(width)) * scale, y: min(max(0, Double(ys[$0])), Double(height)) * scale)
            }
            codes.append(ScannedCode(type: type, payload: payload, corners: corners, decoder: .zxing))
        }
        return codes
    }

    /// The wanted type a ZXing format is reported as: UPC-A as EAN-13 with a leading 0 unless
    /// UPC-A is asked for (as ZBar does), ISBNs as asked.
    private func type(of format: Int32) -> MetadataObjectType? {
        switch format {
        case Int32(LK_ZX_QR): return .qr
        case Int32(LK_ZX_EAN13):
            if types.contains(.ean13) { return .ean13 }
            return types.contains(.isbn13) ? .isbn13 : (types.contains(.isbn10) ? .isbn10 : nil)
        case Int32(LK_ZX_UPCA): return types.contains(.upcA) ? .upcA : nil
        default:
            return types.first { Self.format(of: $0) == format }
        }
    }
}
