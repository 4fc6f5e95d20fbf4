import COpenCV
import CPlanes
#if canImport(Glibc)
import Glibc
#endif

/// The second look at an image ZBar read no code in: within a time budget, zxing-cpp and ZBar again
/// on prepared copies (contrast stretched, shrunk, inverted, sharpened, enlarged), in the order
/// that read the most per millisecond on the development corpus (docs/accuracy.md). Stops at the
/// first preparation that reads something, or when the budget is spent; a step that has begun
/// runs to its end. Used on one queue only; its copies are reused from call to call.
final class CodeSecondPass {
    enum Step: String, CaseIterable, Sendable {
        /// zxing-cpp over the image as it is (it binarises locally and tries rotations).
        case zxing
        /// ZBar over a copy whose grey levels are stretched to the full range (1st-99th percentile).
        case stretched
        /// ZBar over a 2x2-averaged copy: fewer, cleaner pixels for codes photographed large.
        case half
        /// ZBar and zxing over the negative, for light codes on dark ground.
        case inverted
        /// ZBar over an unsharp-masked copy, for bars and modules a camera blurred together. Its
        /// linear reads count as weak whatever their scan lines (sharpening can make bars a
        /// misread agrees with): another decoder or copy must read the same digits.
        case sharpened
        /// ZBar and zxing over a copy enlarged twice (bicubic), for small pictures and codes of
        /// one or two pixels a module; only regions of at most `enlargedArea` pixels. Last: it
        /// only adds to what the others read.
        case enlarged
    }

    /// The largest region enlarged (its copy holds four times as many pixels): a megapixel.
    static let enlargedArea = 1024 * 1024
    /// What the enlarged look costs per pixel of the copy, about (the resize and ZBar's pass; zxing
    /// only when ZBar read nothing): it is not begun with less time left than it needs, so video's
    /// 15 ms never start it on a 720p frame (92 ms), while a 240-pixel picture takes 6 ms.
    static let enlargedNanosecondsPerPixel: Int64 = 25

    /// How zxing-cpp looks here: not inverted (the inverted step gives it the negative), so that
    /// a look, which cannot be cut short, stays near 10 ms on a 720p frame (measured: about 6 ms
    /// trying harder and rotated, 11 ms with every option).
    static let zxingEffort: ZXingScanner.Effort = [.harder, .rotated, .downscaled]

    let steps: [Step]
    private let zbar: BarcodeScanner
    private let zxing: ZXingScanner
    private var copy: [UInt8] = []
    private var half: [UInt8] = []
    private var enlarged: [UInt8] = []

    init(types: Set<MetadataObjectType>, steps: [Step] = Step.allCases) {
        self.steps = steps
        zbar = BarcodeScanner(types: types)
        zxing = ZXingScanner(types: types)
    }

    /// Codes in `region` of the plane, in the plane's pixels; empty when none was read before
    /// `deadline` (MonotonicClock nanoseconds).
    func scan(_ pixels: PixelBuffer, region: (x: Int, y: Int, width: Int, height: Int), deadline: Int64) -> [ScannedCode] {
        scan(pixels, region: region, deadline: deadline, steps: steps).filter { !$0.needsConfirmation || confirms($0, in: pixels, deadline: deadline) }
    }

    private func scan(_ pixels: PixelBuffer, region: (x: Int, y: Int, width: Int, height: Int), deadline: Int64,
                      steps: [Step]) -> [ScannedCode] {
        guard region.width >= 8, region.height >= 8 else { return [] }
        let origin = pixels.baseAddress.advanced(by: region.y * pixels.bytesPerRow + region.x)
        for step in steps {
            guard MonotonicClock.nanoseconds() < deadline else { return [] }
            var codes: [ScannedCode]
            switch step {
            case .zxing:
                codes = zxing.scan(plane: origin, width: region.width, height: region.height, bytesPerRow: pixels.bytesPerRow,
                                   effort: Self.zxingEffort)
            case .stretched:
                prepare(origin, region: region, stride: pixels.bytesPerRow, lookup: stretchTable(origin, region: region, stride: pixels.bytesPerRow))
                codes = scanCopy(width: region.width, height: region.height)
            case .half:
                let width = region.width / 2, height = region.height / 2
                if half.count < width * height { half = Array(repeating: 0, count: width * height) }
                half.withUnsafeMutableBufferPointer {
                    lk_half_scale(origin.assumingMemoryBound(to: UInt8.self), Int32(region.width), Int32(region.height),
                                  Int32(pixels.bytesPerRow), $0.baseAddress!)
                }
                codes = half.withUnsafeBytes { zbar.scan(plane: $0.baseAddress!, width: width, height: height,
                                                         region: (0, 0, width, height), scale: 2) }
            case .sharpened:
                let count = region.width * region.height
                if copy.count < count { copy = Array(repeating: 0, count: count) }
                let made = copy.withUnsafeMutableBufferPointer {
                    lk_sharpen(origin.assumingMemoryBound(to: UInt8.self), Int32(region.width), Int32(region.height),
                               Int32(pixels.bytesPerRow), 2, $0.baseAddress!)
                }
                codes = made == 0 ? scanCopy(width: region.width, height: region.height) : []
                for index in codes.indices where codes[index].type != .qr { codes[index].scanLines = 0 }
            case .enlarged:
                codes = scanEnlarged(origin, region: region, stride: pixels.bytesPerRow, deadline: deadline)
            case .inverted:
                prepare(origin, region: region, stride: pixels.bytesPerRow, lookup: Self.negative)
                codes = scanCopy(width: region.width, height: region.height)
                if codes.isEmpty, MonotonicClock.nanoseconds() < deadline {
                    codes = copy.withUnsafeBytes { zxing.scan(plane: $0.baseAddress!, width: region.width, height: region.height,
                                                              bytesPerRow: region.width, effort: Self.zxingEffort) }
                }
            }
            if !codes.isEmpty {
                return codes.map { $0.offset(x: region.x, y: region.y) }
            }
        }
        return []
    }

    /// ZBar, then zxing, over a copy of the region enlarged twice; nothing for regions larger than
    /// `enlargedArea`. Corners come back in the region's pixels.
    private func scanEnlarged(_ origin: UnsafeRawPointer, region: (x: Int, y: Int, width: Int, height: Int), stride: Int,
                              deadline: Int64) -> [ScannedCode] {
        let width = region.width * 2, height = region.height * 2
        guard region.width * region.height <= Self.enlargedArea,
              deadline - MonotonicClock.nanoseconds() >= Int64(width * height) * Self.enlargedNanosecondsPerPixel else { return [] }
        if enlarged.count < width * height { enlarged = Array(repeating: 0, count: width * height) }
        let made = enlarged.withUnsafeMutableBufferPointer {
            lk_double_scale(origin.assumingMemoryBound(to: UInt8.self), Int32(region.width), Int32(region.height), Int32(stride),
                            $0.baseAddress!)
        }
        guard made == 0 else { return [] }
        return enlarged.withUnsafeBytes { plane in
            let read = zbar.scan(plane: plane.baseAddress!, width: width, height: height, region: (0, 0, width, height), scale: 0.5)
            guard read.isEmpty, MonotonicClock.nanoseconds() < deadline else { return read }
            return zxing.scan(plane: plane.baseAddress!, width: width, height: height, bytesPerRow: width, scale: 0.5,
                              effort: Self.zxingEffort)
        }
    }

    /// ZBar over the prepared copy (tightly packed, `width` x `height`).
    private func scanCopy(width: Int, height: Int) -> [ScannedCode] {
        copy.withUnsafeBytes { zbar.scan(plane: $0.baseAddress!, width: width, height: height, region: (0, 0, width, height), scale: 1) }
    }

    private static let negative: [UInt8] = (0...255).map { 255 - UInt8($0) }

    /// True when another reading of the area around `code` (plane pixels) gives the same type and
    /// bytes, by zxing-cpp or by ZBar on a prepared copy with enough scan lines, until `deadline`.
    /// ZBar's own weak reading again proves nothing: it repeats a misread as readily as a read.
    func confirms(_ code: ScannedCode, in pixels: PixelBuffer, deadline: Int64) -> Bool {
        let box = Rect.enclosing(code.corners)
        let margin = max(box.width, box.height) * 0.75 + 16
        let x = max(0, Int(box.x - margin)), y = max(0, Int(box.y - margin))
        let area = (x: x, y: y, width: min(pixels.width, Int(box.maxX + margin)) - x, height: min(pixels.height, Int(box.maxY + margin)) - y)
        let confirming = CodeSecondPass.Step.allCases.filter { $0 != .inverted && $0 != .sharpened }
        for step in confirming {
            let read = scan(pixels, region: area, deadline: deadline, steps: [step])
            if read.contains(where: { $0.type == code.type && $0.payload == code.payload && !$0.needsConfirmation }) { return true }
        }
        return false
    }

    /// The region copied into `copy` (tightly packed) through a grey-level table.
    private func prepare(_ origin: UnsafeRawPointer, region: (x: Int, y: Int, width: Int, height: Int), stride: Int, lookup: [UInt8]) {
        let count = region.width * region.height
        if copy.count < count { copy = Array(repeating: 0, count: count) }
        let source = origin.assumingMemoryBound(to: UInt8.self)
        copy.withUnsafeMutableBufferPointer { target in
            lookup.withUnsafeBufferPointer { table in
                for row in 0..<region.height {
                    let from = source + row * stride, to = target.baseAddress! + row * region.width
                    for column in 0..<region.width { to[column] = table[Int(from[column])] }
                }
            }
        }
    }

    /// A table stretching the region's 1st-99th percentile grey levels (sampled every 4th pixel
    /// of every 4th row) to 0-255.
    private func stretchTable(_ origin: UnsafeRawPointer, region: (x: Int, y: Int, width: Int, height: Int), stride: Int) -> [UInt8] {
        var histogram = [Int](repeating: 0, count: 256)
        let source = origin.assumingMemoryBound(to: UInt8.self)
        var samples = 0
        for row in Swift.stride(from: 0, to: region.height, by: 4) {
            for column in Swift.stride(from: 0, to: region.width, by: 4) {
                histogram[Int(source[row * stride + column])] += 1
                samples += 1
            }
        }
        var low = 0, high = 255, seen = 0
        for level in 0..<256 { seen += histogram[level]; if seen * 100 >= samples { low = level; break } }
        seen = 0
        for level in (0..<256).reversed() { seen += histogram[level]; if seen * 100 >= samples { high = level; break } }
        guard high > low else { return (0...255).map { UInt8($0) } }
        let span = Double(high - low)
        return (0...255).map { UInt8(min(255, max(0, (Double($0 - low) * 255 / span).rounded()))) }
    }
}
