import COpenCV
import Testing
@testable import Lookout

/// The copies `lookout scan` has zxing-cpp read after the picture (`StillCodeReader.Look`): each
/// reads a code the picture and the other copies do not.
@Suite("still code copies")
struct StillCodeCopiesTests {
    static let overExposed = "https://lookout.example/over-exposed/0042"

    /// zxing-cpp's QR texts in a copy of the image made by `make`, read with `effort`.
    static func texts(in image: PixelBuffer, effort: ZXingScanner.Effort = .thorough,
                      copy make: ((UnsafePointer<UInt8>, Int32, Int32, Int32, UnsafeMutablePointer<UInt8>) -> Int32)? = nil) -> [String] {
        let scanner = ZXingScanner(types: [.qr])
        guard let make else {
            return scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                effort: effort).map { String(decoding: $0.payload, as: UTF8.self) }
        }
        var copy = [UInt8](repeating: 0, count: image.width * image.height)
        let made = copy.withUnsafeMutableBufferPointer {
            make(image.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.height),
                 Int32(image.bytesPerRow), $0.baseAddress!)
        }
        #expect(made == 0)
        return copy.withUnsafeBytes {
            scanner.scan(plane: $0.baseAddress!, width: image.width, height: image.height, bytesPerRow: image.width, effort: effort)
        }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    /// An over-exposed code of small modules at a fifth of the contrast, on an unevenly lit wall
    /// (Tests/Fixtures/qr-over-exposed.png): zxing-cpp reads it only once each pixel is divided
    /// by the light around it and the result stretched; scan does, with its text.
    @Test func theFlattenedCopyReadsAnOverExposedCode() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-over-exposed.png"))
        #expect(Self.texts(in: image).isEmpty, "zxing-cpp reads the picture as it is: the fixture no longer tests the copy")
        let sharpen = { lk_sharpen($0, $1, $2, $3, 1, $4) }
        #expect(Self.texts(in: image, copy: sharpen).isEmpty)
        #expect(Self.texts(in: image, effort: ZXingScanner.Effort.thorough.union(.globalThreshold), copy: sharpen).isEmpty)
        #expect(Self.texts(in: image, copy: { lk_flatten_sharpen($0, $1, $2, $3, $4) }) == [Self.overExposed])

        let objects = try jsonObjects(try lookout(["scan", "--types", "qr", Fixtures.path("qr-over-exposed.png")]))
        #expect(objects.map { $0["value"] as? String } == [Self.overExposed])
        #expect(objects.first?["decoder"] as? String == "zxing")
    }

    /// A small blurred code on a label wrapped round a can, cropped from a benchmark photograph of
    /// the corpus (Tests/Fixtures/qr-enlarge.png, modules of 2.8 px): neither reader reads the
    /// picture, the sharpened or the flattened copy; zxing-cpp reads it once it is enlarged twice
    /// and sharpened, and so do scan's first looks, on one processor and on two.
    @Test func theEnlargedCopyReadsASmallBlurredCode() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-enlarge.png"))
        let text = "https://example.com/the/305873?id="
        #expect(Self.texts(in: image).isEmpty, "zxing-cpp reads the picture as it is: the fixture no longer tests the copy")
        let sharpen = { lk_sharpen($0, $1, $2, $3, 1, $4) }
        #expect(Self.texts(in: image, copy: sharpen).isEmpty)
        #expect(Self.texts(in: image, effort: ZXingScanner.Effort.thorough.union(.globalThreshold), copy: sharpen).isEmpty)
        #expect(Self.texts(in: image, copy: { lk_flatten_sharpen($0, $1, $2, $3, $4) }).isEmpty)
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        #expect(BarcodeScanner(types: [.qr]).scan(image, region: whole).isEmpty)

        var enlarged = [UInt8](repeating: 0, count: 4 * image.width * image.height)
        let made = enlarged.withUnsafeMutableBufferPointer {
            lk_enlarge_sharpen(image.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.height),
                               Int32(image.bytesPerRow), 2, $0.baseAddress!)
        }
        #expect(made == 0)
        let read = enlarged.withUnsafeBytes {
            ZXingScanner(types: [.qr]).scan(plane: $0.baseAddress!, width: 2 * image.width, height: 2 * image.height,
                                            bytesPerRow: 2 * image.width)
        }
        #expect(read.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        for processors in [1, 2] {
            // No budget: the prepared copies and windows stay off, so the first looks read it.
            let codes = StillCodeReader(types: [.qr], zbar: BarcodeScanner(types: [.qr]), processors: processors)
                .read(image, region: whole, budget: 0, planeIsHalfSize: false)
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text], "\(processors) processors")
        }
    }

    /// The same small blurred code in a picture too large to be enlarged whole (4.4 megapixels of
    /// plain paper round it): the first looks miss it; the place where the picture looks like a
    /// matrix symbol is read enlarged and sharpened within the budget, its corners on the code.
    @Test func aSmallBlurredCodeInALargePictureIsReadInItsPlaceEnlarged() throws {
        let code = try StillImage.load(path: Fixtures.path("qr-enlarge.png"))
        let (width, height, at) = (2200, 2000, (x: 1500, y: 1200))
        #expect(width * height > StillCodeReader.enlargedPixels)
        let pool = BufferPool(count: 1)
        let index = try #require(pool.acquire(capacity: width * height, wait: false))
        let pixels = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        pixels.update(repeating: code[0, 0], count: width * height)
        for y in 0..<code.height {
            for x in 0..<code.width { pixels[(at.y + y) * width + at.x + x] = code[x, y] }
        }
        let picture = PixelBuffer(width: width, height: height, bytesPerRow: width, pool: pool, poolIndex: index)
        let whole = (x: 0, y: 0, width: width, height: height)
        for processors in [1, 2] {
            let reader = StillCodeReader(types: [.qr], zbar: BarcodeScanner(types: [.qr]), processors: processors)
            #expect(reader.read(picture, region: whole, budget: 0, planeIsHalfSize: false).isEmpty,
                    "the first looks read the code: the test no longer tests its place")
            // A budget no loaded machine runs out of.
            let codes = reader.read(picture, region: whole, budget: 600_000, planeIsHalfSize: false)
            #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["https://example.com/the/305873?id="])
            let box = Rect.enclosing(codes.first?.corners ?? [])
            #expect(box.midX > Double(at.x) && box.midX < Double(at.x + code.width), "\(box)")
            #expect(box.midY > Double(at.y) && box.midY < Double(at.y + code.height), "\(box)")
        }
    }

    /// A defocused code (Tests/Fixtures/qr-defocused.png: 2.5 px modules under a blur of about
    /// two thirds of a module): no first look reads it, nor the picture enlarged and sharpened;
    /// deconvolved by a blur of the ladder (`qrDeconvolutions`) it is read, and so scan's places
    /// read it within the budget.
    @Test func aDefocusedCodeIsReadDeconvolvedInItsPlace() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("qr-defocused.png", types: [.qr])
        let text = "Ελληνικά και русский Grüße aus Köln – été ✓ Ελ"
        let (enlarged, rungs) = reader.lanes[0].withLock { lane in
            (lane.readCopy(.enlarged, of: image, region: whole).joined().map { String(decoding: $0.payload, as: UTF8.self) },
             StillCodeReader.qrDeconvolutions.filter { !$0.enlarged }.map {
                 lane.readDeconvolved(image, region: whole, blur: $0.blur, noise: $0.noise, types: [.qr]).map { String(decoding: $0.payload, as: UTF8.self) }
             })
        }
        #expect(enlarged.isEmpty, "the enlarged copy reads the code: the test no longer tests the deconvolution")
        #expect(rungs.contains([text]), "\(rungs)")
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// Small codes of about 2.2 px modules, soft, under glare and under bright spots, cropped
    /// from benchmark photographs (Tests/Fixtures/qr-glare-soft.png, qr-spots-soft.png): no first
    /// look reads them, nor their enlarged or toned copies, nor a rung deconvolved at their own
    /// size; deconvolved and then enlarged twice, they are, and so scan's places read them.
    @Test(arguments: [
        ("qr-glare-soft.png", "camera, room out item in item. and, and, in tabl"),
        ("qr-spots-soft.png", "table batch,"),
    ])
    func aSmallSoftCodeIsReadDeconvolvedAndEnlarged(fixture: String, text: String) throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks(fixture, types: [.qr])
        func texts(_ codes: [ScannedCode]) -> [String] { codes.map { String(decoding: $0.payload, as: UTF8.self) } }
        let (copies, rungs) = reader.lanes[0].withLock { lane in
            ([texts(Array(lane.readCopy(.enlarged, of: image, region: whole).joined()))]
                + StillCodeReader.PlaceTone.allCases.map { texts(lane.readToned(image, region: whole, tone: $0)) },
             StillCodeReader.qrDeconvolutions.map {
                 (enlarged: $0.enlarged,
                  read: texts(lane.readDeconvolved(image, region: whole, blur: $0.blur, noise: $0.noise, enlarged: $0.enlarged, types: [.qr])))
             })
        }
        #expect(copies.allSatisfy { $0.isEmpty }, "a copy reads the code: the test no longer tests the deconvolution \(copies)")
        #expect(rungs.filter { !$0.enlarged }.allSatisfy { $0.read.isEmpty }, "\(rungs)")
        #expect(rungs.contains { $0.enlarged && $0.read == [text] }, "\(rungs)")
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(texts(codes) == [text])
        // The crops hold the code in their middle third.
        let box = Rect.enclosing(codes.first?.corners ?? [])
        #expect(abs(box.midX - Double(image.width) / 2) < Double(image.width) / 6
                && abs(box.midY - Double(image.height) / 2) < Double(image.height) / 6, "\(box)")
    }

    /// A plain white picture stays plain when flattened: no division by zero, no levels made up.
    @Test func flatteningKeepsAPlainPictureFlat() {
        let width = 64, height = 48
        let plain = [UInt8](repeating: 255, count: width * height)
        var out = [UInt8](repeating: 7, count: width * height)
        let made = plain.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer {
                lk_flatten_sharpen(source.baseAddress!, Int32(width), Int32(height), Int32(width), $0.baseAddress!)
            }
        }
        #expect(made == 0)
        #expect(Set(out).count == 1, "a plain picture came out with \(Set(out).count) levels")
    }
}
