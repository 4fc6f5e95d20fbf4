import Testing
@testable import Lookout

/// Small codes whose light modules the picture's light took (glare, over-exposure), read in their
/// place with its tones set right, then enlarged (`StillCodeReader.PlaceTone`).
@Suite("places toned")
struct PlaceToneTests {
    /// The texts zxing-cpp reads in the whole fixture enlarged as it is, and toned each way first.
    static func reads(_ fixture: String) throws -> (reader: StillCodeReader, image: PixelBuffer, plain: [String], toned: [StillCodeReader.PlaceTone: [String]]) {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks(fixture, types: [.qr])
        let (plain, toned) = reader.lanes[0].withLock { lane in
            (lane.readCopy(.enlarged, of: image, region: whole).joined().map { String(decoding: $0.payload, as: UTF8.self) },
             Dictionary(uniqueKeysWithValues: StillCodeReader.PlaceTone.allCases.map { tone in
                 (tone, lane.readToned(image, region: whole, tone: tone).map { String(decoding: $0.payload, as: UTF8.self) })
             }))
        }
        return (reader, image, plain, toned)
    }

    /// A code of 2.7 px modules under glare (Tests/Fixtures/qr-glare-small.png, from the benchmark
    /// photograph qr-bench/glare/021.jpg): enlarged as it is, nothing; flattened first, it is read,
    /// and so scan's places read it within the budget.
    @Test func aSmallCodeUnderGlareIsReadFlattenedInItsPlace() throws {
        let text = "batch kiosk, parcel ga"
        let (reader, image, plain, toned) = try Self.reads("qr-glare-small.png")
        #expect(plain.isEmpty, "the enlarged copy reads the code: the test no longer tests the tones")
        #expect(toned[.flattened] == [text], "\(toned)")
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        #expect(reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false).map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// An over-exposed code of 2 px modules (Tests/Fixtures/qr-over-exposed-small.png, from the
    /// benchmark photograph qr-bench/brightness/008.jpg): enlarged as it is or flattened, nothing;
    /// darkened first, it is read.
    @Test func aSmallOverExposedCodeIsReadDarkened() throws {
        let (_, _, plain, toned) = try Self.reads("qr-over-exposed-small.png")
        #expect(plain.isEmpty, "the enlarged copy reads the code: the test no longer tests the tones")
        #expect(toned[.flattened] == [], "\(toned)")
        #expect(toned[.darkened] == ["https://example.com/guest/144701?id="], "\(toned)")
    }

    /// An over-exposed PDF417 symbol (Tests/Fixtures/pdf417-over-exposed.png, from the code
    /// photograph code-bench/pdf417/023.jpg): the first looks, the windows and the places of rows
    /// read nothing; the picture darkened is read, and so scan reads it within the budget.
    @Test func anOverExposedPDF417IsReadDarkened() throws {
        let text = "hall pass seat pass hall ticket #592247"
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("pdf417-over-exposed.png", types: [.pdf417])
        let darkened = reader.lanes[0].withLock { lane in
            lane.readToned(image, region: whole, tone: .darkened, enlarged: false).map { String(decoding: $0.payload, as: UTF8.self) }
        }
        #expect(darkened == [text])
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// Darkening keeps black black and white white, and darkens what lies between.
    @Test func darkeningKeepsTheEndsAndDarkensTheMiddle() {
        let levels: [UInt8] = [0, 64, 128, 200, 255]
        var out = [UInt8](repeating: 7, count: levels.count)
        let applied = levels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer {
                StillCodeReader.PlaceTone.darkened.apply(source.baseAddress!, width: levels.count, height: 1, bytesPerRow: levels.count, into: $0.baseAddress!)
            }
        }
        #expect(applied)
        #expect(out == [0, 4, 32, 123, 255], "\(out)")
    }
}
