import COpenCV
import CTurboJPEG

/// Turns frame pictures into JPEG images for people (photos, snapshots, the web view): the input's
/// own JPEG bytes when nothing is drawn and the size stays, otherwise decoded to RGB (TurboJPEG for
/// JPEG, OpenCV for raw camera layouts), outlines and labels drawn, resized, and encoded again.
///
/// Not thread-safe: use one renderer per queue. Its RGB buffers are kept and reused.
public final class PictureRenderer {
    /// An outline to draw through `points` (frame pixels), with a label, in a colour.
    public struct Overlay: Sendable, Equatable {
        public var points: [Point]
        public var label: String
        public var colour: (red: UInt8, green: UInt8, blue: UInt8)

        public init(points: [Point], label: String, colour: (red: UInt8, green: UInt8, blue: UInt8)) {
            self.points = points
            self.label = label
            self.colour = colour
        }

        public static func == (lhs: Overlay, rhs: Overlay) -> Bool {
            lhs.points == rhs.points && lhs.label == rhs.label && lhs.colour == rhs.colour
        }

        /// Codes green, faces orange: the colours the web view uses too.
        public static let codeColour: (red: UInt8, green: UInt8, blue: UInt8) = (0, 200, 80)
        public static let faceColour: (red: UInt8, green: UInt8, blue: UInt8) = (255, 150, 0)

        /// The outline and label of an object: a code's corners and its type and text, a face's
        /// box and ID.
        public init(_ object: MetadataObject) {
            if let code = object as? MachineReadableCodeObject {
                self.init(points: code.pixelCorners, label: "\(code.type.zbarName): \(code.stringValue)", colour: Self.codeColour)
            } else {
                let box = object.pixelBounds
                let label = (object as? FaceObject).map { "face \($0.faceID)" } ?? object.type.rawValue
                self.init(points: [Point(x: box.x, y: box.y), Point(x: box.maxX, y: box.y),
                                   Point(x: box.maxX, y: box.maxY), Point(x: box.x, y: box.maxY)],
                          label: label, colour: Self.faceColour)
            }
        }
    }

    /// JPEG quality of pictures this renderer encodes (1-100).
    public let quality: Int
    private let decompressor: tjhandle
    private let compressor: tjhandle
    private var rgb: [UInt8] = []
    private var resized: [UInt8] = []

    public init(quality: Int = 85) {
        self.quality = min(100, max(1, quality))
        guard let decompressor = tjInitDecompress(), let compressor = tjInitCompress() else {
            fatalError("TurboJPEG: out of memory")
        }
        self.decompressor = decompressor
        self.compressor = compressor
    }

    deinit {
        tjDestroy(decompressor)
        tjDestroy(compressor)
    }

    /// The picture as a JPEG image, `overlays` drawn (in frame pixels), scaled to `height` pixels
    /// high when given and smaller than the picture.
    public func jpeg(of picture: FramePicture, overlays: [Overlay] = [], height: Int? = nil) throws(MediaError) -> [UInt8] {
        let targetHeight = height.map { max(16, min($0, picture.height)) } ?? picture.height
        if picture.isJPEG, overlays.isEmpty, targetHeight == picture.height {
            return Array(picture.bytes)
        }
        try decodeRGB(picture)
        let width = picture.width, height = picture.height
        for overlay in overlays where !overlay.points.isEmpty {
            let xs = overlay.points.map(\.x), ys = overlay.points.map(\.y)
            rgb.withUnsafeMutableBufferPointer { pixels in
                lk_draw_outline(pixels.baseAddress, Int32(width), Int32(height), xs, ys, Int32(xs.count), overlay.label,
                                Int32(overlay.colour.red), Int32(overlay.colour.green), Int32(overlay.colour.blue))
            }
        }
        if targetHeight == height { return try encode(rgb, width: width, height: height) }
        let targetWidth = max(1, (width * targetHeight + height / 2) / height)
        if resized.count < targetWidth * targetHeight * 3 { resized = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3) }
        rgb.withUnsafeBufferPointer { source in
            resized.withUnsafeMutableBufferPointer { destination in
                lk_resize_rgb(source.baseAddress, Int32(width), Int32(height), destination.baseAddress,
                              Int32(targetWidth), Int32(targetHeight))
            }
        }
        return try encode(resized, width: targetWidth, height: targetHeight)
    }

    private func decodeRGB(_ picture: FramePicture) throws(MediaError) {
        let count = picture.width * picture.height * 3
        if rgb.count < count { rgb = [UInt8](repeating: 0, count: count) }
        let bytes = picture.bytes // asks the pool once
        if picture.isJPEG {
            let status = rgb.withUnsafeMutableBufferPointer { pixels in
                tjDecompress2(decompressor, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                              pixels.baseAddress, Int32(picture.width), Int32(picture.width * 3), Int32(picture.height),
                              Int32(TJPF_RGB.rawValue), 0)
            }
            // A warning (a truncated frame) still leaves a usable picture; only hard errors fail.
            if status != 0, tjGetErrorCode(decompressor) == Int32(TJERR_FATAL.rawValue) {
                throw .corruptImage(reason: tjGetErrorStr2(decompressor).map { String(cString: $0) } ?? "unknown JPEG error")
            }
            return
        }
        let status = rgb.withUnsafeMutableBufferPointer { pixels in
            lk_raw_to_rgb(Self.layout(picture.pixelFormat), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                          bytes.count, Int32(picture.width), Int32(picture.height), Int32(picture.bytesPerRow),
                          pixels.baseAddress)
        }
        guard status == 0 else {
            throw .corruptImage(reason: "\(bytes.count) bytes is too short for a \(picture.width)x\(picture.height) \(picture.pixelFormat) picture")
        }
    }

    private static func layout(_ format: PixelFormat) -> Int32 {
        switch format {
        case .gray: return Int32(LK_RAW_GRAY)
        case .yuyv: return Int32(LK_RAW_YUYV)
        case .uyvy: return Int32(LK_RAW_UYVY)
        case .nv12: return Int32(LK_RAW_NV12)
        case .nv21: return Int32(LK_RAW_NV21)
        case .yuv420: return Int32(LK_RAW_I420)
        case .yuv422p: return Int32(LK_RAW_422P)
        case .yuv444p: return Int32(LK_RAW_444P)
        case .mjpeg: return -1
        }
    }

    private func encode(_ pixels: [UInt8], width: Int, height: Int) throws(MediaError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(compressor, source.baseAddress, Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else {
            throw .corruptImage(reason: tjGetErrorStr2(compressor).map { String(cString: $0) } ?? "JPEG encoding failed")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
