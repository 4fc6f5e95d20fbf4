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

    @Test func aJPEGFrameDecodesAtHalfScaleToTheFrameAtHalfSize() throws {
        let jpeg = try Fixtures.bytes("frame0.jpg")
        let pool = BufferPool(count: 2)
        let converter = LumaConverter()
        let (whole, reduced) = try jpeg.withUnsafeBytes { raw in
            (try converter.convertJPEG(raw, pool: pool, wait: false),
             try converter.convertJPEG(raw, pool: pool, wait: false) { width, height in
                 #expect(width == 1280 && height == 720, "asked with the frame's size")
                 return 2
             })
        }
        guard case .image(let full, 1280, 720) = whole, case .image(let half, 1280, 720) = reduced else {
            Issue.record("expected both planes, each with the frame's size: \(whole), \(reduced)")
            return
        }
        #expect(full.width == 1280 && full.height == 720)
        #expect(half.width == 640 && half.height == 360 && half.bytesPerRow == 640)
        // The same picture: each pixel close to the mean of its 2x2 block in the full plane.
        var difference = 0
        for y in 0..<360 {
            for x in 0..<640 {
                let mean = (Int(full[2 * x, 2 * y]) + Int(full[2 * x + 1, 2 * y]) + Int(full[2 * x, 2 * y + 1])
                            + Int(full[2 * x + 1, 2 * y + 1]) + 2) / 4
                difference += abs(mean - Int(half[x, y]))
            }
        }
        let meanDifference = Double(difference) / Double(640 * 360)
        #expect(meanDifference < 1.5, "mean difference \(meanDifference) grey levels")
        #expect(JPEGDecoder.scaledSize(width: 1281, height: 721, reduction: 2) == (641, 361))
    }

    /// A frame's full and half-size planes compare with each other in the motion gate (the session
    /// hands over either, depending on whether faces are due), and a real change still shows.
    @Test func theMotionGateComparesFullAndHalfSizePlanesOfTheSameScene() throws {
        let frames = naiveFrames(try Fixtures.bytes("sample.mjpeg"))
        try #require(frames.count == 60)
        let pool = BufferPool(count: 3)
        let converter = LumaConverter()
        func plane(_ jpeg: [UInt8], reduction: Int) throws -> PixelBuffer {
            let result = try jpeg.withUnsafeBytes { try converter.convertJPEG($0, pool: pool, wait: false) { _, _ in reduction } }
            guard case .image(let image, _, _) = result else { throw MediaError.corruptImage(reason: "no pool buffer") }
            return image
        }
        var gate = MotionGate(threshold: 4, samplesEveryPixel: true)
        #expect(gate.hasChanged(try plane(frames[0], reduction: 1), reduction: 1), "the first frame is a change")
        #expect(!gate.hasChanged(try plane(frames[0], reduction: 2), reduction: 2), "the same scene at half size")
        #expect(gate.hasChanged(try plane(frames[10], reduction: 2), reduction: 2), "frame 10: the codes moved")
        #expect(!gate.hasChanged(try plane(frames[10], reduction: 1), reduction: 1), "frame 10 again, whole")
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
