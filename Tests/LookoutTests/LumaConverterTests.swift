import Testing
@testable import Lookout

@Suite("Luma from every pixel format")
struct LumaConverterTests {
    /// A frame whose luma at (x, y) is (x * 7 + y * 13) & 0xFF, laid out as `format`, rows padded.
    func frame(_ format: PixelFormat, width: Int, height: Int, padding: Int) -> (bytes: [UInt8], bytesPerRow: Int) {
        func luma(_ x: Int, _ y: Int) -> UInt8 { UInt8((x * 7 + y * 13) & 0xFF) }
        let packed = format == .yuyv || format == .uyvy
        let bytesPerRow = width * (packed ? 2 : 1) + padding
        var bytes = [UInt8](repeating: 0xEE, count: bytesPerRow * height + bytesPerRow * height) // room for chroma
        for y in 0..<height {
            for x in 0..<width {
                switch format {
                case .yuyv: bytes[y * bytesPerRow + 2 * x] = luma(x, y); bytes[y * bytesPerRow + 2 * x + 1] = 0x80
                case .uyvy: bytes[y * bytesPerRow + 2 * x + 1] = luma(x, y); bytes[y * bytesPerRow + 2 * x] = 0x80
                default: bytes[y * bytesPerRow + x] = luma(x, y)
                }
            }
        }
        return (bytes, bytesPerRow)
    }

    @Test(arguments: [PixelFormat.yuyv, .uyvy, .gray, .nv12, .nv21, .yuv420, .yuv422p, .yuv444p])
    func lumaPlaneIsExact(format: PixelFormat) throws {
        let width = 34, height = 10
        for padding in [0, 6] {
            let (bytes, bytesPerRow) = frame(format, width: width, height: height, padding: padding)
            let pool = BufferPool(count: 1)
            let result = try bytes.withUnsafeBytes { raw in
                try LumaConverter().convertRaw(raw, format: VideoFormatDescription(width: width, height: height, pixelFormat: format),
                                               bytesPerRow: bytesPerRow, pool: pool, wait: false)
            }
            guard case .image(let image, _, _) = result else { Issue.record("no image"); return }
            #expect(image.bytesPerRow == width)
            for y in 0..<height {
                for x in 0..<width where image[x, y] != UInt8((x * 7 + y * 13) & 0xFF) {
                    Issue.record("\(format) padding \(padding): wrong luma at \(x),\(y)")
                    return
                }
            }
        }
    }

    @Test func shortFrameIsCorruptNotACrash() {
        let pool = BufferPool(count: 1)
        let bytes = [UInt8](repeating: 0, count: 100)
        #expect(throws: MediaError.self) {
            _ = try bytes.withUnsafeBytes { raw in
                try LumaConverter().convertRaw(raw, format: VideoFormatDescription(width: 64, height: 48, pixelFormat: .yuyv),
                                               bytesPerRow: 128, pool: pool, wait: false)
            }
        }
        #expect(pool.freeCount == 1, "the pool buffer is not lost")
    }
}
