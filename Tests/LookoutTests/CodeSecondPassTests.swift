import Foundation
import Testing
@testable import Lookout

/// The second look at pictures ZBar reads nothing in, through `lookout scan` and the library.
@Suite("Code second pass")
struct CodeSecondPassTests {
    /// A QR code from the development corpus (low contrast, JPEG, 6 px modules, tilted 28°)
    /// that ZBar cannot read as it is and zxing-cpp can: read in scan's first look, whatever the
    /// budget of the prepared copies.
    @Test func aCodeOnlyZXingReadsIsReportedWithItsDecoder() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-second-pass.png"))
        #expect(BarcodeScanner(types: [.qr]).scan(image, region: (0, 0, image.width, image.height)).isEmpty)
        for budget in [["--code-budget", "0"], []] {
            let objects = try jsonObjects(try lookout(["scan", "--types", "qr"] + budget + [Fixtures.path("qr-second-pass.png")]))
            #expect(objects.count == 1)
            #expect(objects.first?["value"] as? String == "東京タワー 2026年")
            #expect(objects.first?["decoder"] as? String == "zxing")
        }
    }

    /// Light modules on a dark ground: zxing-cpp reads it inverted in scan's first look, and
    /// ZBar reads the negative copy (the second pass's step, for video) where plain ZBar cannot.
    @Test func anInvertedCodeIsReadOnTheNegative() throws {
        let objects = try jsonObjects(try lookout(["scan", "--types", "qr", "--code-budget", "0", Fixtures.path("qr-inverted.png")]))
        #expect(objects.map { $0["value"] as? String } == ["ｶﾀｶﾅ ﾃｽﾄ 123"])
        let image = try StillImage.load(path: Fixtures.path("qr-inverted.png"))
        let region = (x: 0, y: 0, width: image.width, height: image.height), later = MonotonicClock.nanoseconds() + 60_000_000_000
        #expect(BarcodeScanner(types: [.qr]).scan(image, region: region).isEmpty)
        let negative = CodeSecondPass(types: [.qr], steps: [.inverted]).scan(image, region: region, deadline: later)
        #expect(negative.map { CodePayloadDecoder.decode($0.payload).text } == ["ｶﾀｶﾅ ﾃｽﾄ 123"])
        #expect(negative.map(\.decoder) == [.zbar])
    }

    /// What zxing-cpp reads in `image`, and the looks taken (one: it reads in this process).
    static func zxingLooks(_ scanner: ZXingScanner, at image: PixelBuffer) -> (codes: [ScannedCode], looks: Int) {
        (scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow), 1)
    }

    /// What `step` alone reads in a fixture, after checking every other step reads nothing there.
    static func readOnlyBy(_ step: CodeSecondPass.Step, in fixture: String) throws -> (codes: [ScannedCode], image: PixelBuffer) {
        let image = try StillImage.load(path: Fixtures.path(fixture))
        let region = (x: 0, y: 0, width: image.width, height: image.height)
        let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
        let others = CodeSecondPass(types: [.qr], steps: CodeSecondPass.Step.allCases.filter { $0 != step })
        #expect(others.scan(image, region: region, deadline: deadline).isEmpty, "\(fixture)")
        return (CodeSecondPass(types: [.qr], steps: [step]).scan(image, region: region, deadline: deadline), image)
    }

    /// A code of 1.3-pixel modules: no step reads it at its size; the enlarged copy does, with
    /// corners back in the picture's pixels.
    @Test func aCodeOfFewPixelsIsReadEnlarged() throws {
        let (codes, image) = try Self.readOnlyBy(.enlarged, in: "qr-small.png")
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["https://example.org/lookout?enlarged=1"])
        let corners = try #require(codes.first?.corners)
        #expect(corners.count == 4 && corners.allSatisfy { (5...Double(image.width - 5)).contains($0.x) && (5...Double(image.height - 5)).contains($0.y) })
        let scanned = try jsonObjects(try lookout(["scan", "--types", "qr", Fixtures.path("qr-small.png")]))
        #expect(scanned.map { $0["value"] as? String } == ["https://example.org/lookout?enlarged=1"])
    }

    /// A blurred, faint code: no other step reads it; ZBar on the sharpened copy does.
    @Test func aBlurredCodeIsReadSharpened() throws {
        let codes = try Self.readOnlyBy(.sharpened, in: "qr-blurred.png").codes
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["https://example.org/lookout?sharpened=1"])
    }

    /// The held-out photographs' wrong texts, as fixtures: half-width katakana in a byte segment,
    /// and 0x5C / 0x7E in Shift-JIS. raw_base64 keeps the bytes.
    @Test func shiftJISPayloadsReadExactly() throws {
        let objects = try jsonObjects(try lookout(["scan", "--types", "qr", Fixtures.path("qr-sjis-katakana.png"),
                                                   Fixtures.path("qr-sjis-backslash.png")]))
        #expect(objects.map { $0["value"] as? String } == ["ｶﾀｶﾅ ﾃｽﾄ 123", "C:\\ﾃｽﾄ\\漢字~1.txt"])
        #expect(objects.map { $0["encoding"] as? String } == ["shift_jis", "shift_jis"])
        #expect(objects.map { $0["raw_base64"] as? String } == ["tsC2xSDDvcQgMTIz", "Qzpcw73EXIq/jpp+MS50eHQ="])
        // A user who knows better forces the charset; the bytes stay the same.
        let forced = try jsonObjects(try lookout(["scan", "--types", "qr", "--charset", "iso-8859-1", Fixtures.path("qr-sjis-katakana.png")]))
        #expect(forced.first?["value"] as? String == "¶À¶Å Ã½Ä 123" && forced.first?["raw_base64"] as? String == "tsC2xSDDvcQgMTIz")
        // Another name of the same encoding reads the same.
        let alias = try jsonObjects(try lookout(["scan", "--types", "qr", "--charset", "Latin1", Fixtures.path("qr-sjis-katakana.png")]))
        #expect(alias.first?["value"] as? String == "¶À¶Å Ã½Ä 123")
        let unknown = try lookout(["scan", "--charset", "klingon", Fixtures.path("qr-sjis-katakana.png")])
        #expect(unknown.status == 64 && unknown.stderr.contains("--charset") && unknown.stderr.contains("one of auto, utf-8"), "\(unknown.stderr)")
    }

    /// zxing-cpp 1.4 keeps a Kanji-mode segment's characters in another form than the symbol's
    /// Shift-JIS bytes; the reader gives the symbol's bytes, so the text is the code's own.
    @Test func zxingReadsAKanjiSegmentAsItsShiftJISBytes() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-kanji.png"))
        let (codes, _) = Self.zxingLooks(ZXingScanner(types: [.qr]), at: image)
        #expect(codes.map(\.payload) == [[0x8A, 0xBF, 0x8E, 0x9A, 0x83, 0x65, 0x83, 0x58, 0x83, 0x67]])
        #expect(codes.map { CodePayloadDecoder.decode($0.payload).text } == ["漢字テスト"])
    }

    /// Debian's zxing-cpp 1.4 aborted (a failed assertion) on a plain EAN-13 drawn large, and ran
    /// in a helper process for it; zxing-cpp 3, built without assertions, reads it in process,
    /// from several threads at once.
    @Test func zxingReadsWhatOnceAbortedItInProcess() throws {
        let image = try StillImage.load(path: Fixtures.path("ean13-zxing-abort.png"))
        let results = Locked<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let scanner = ZXingScanner(types: [.ean13])
            let codes = scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow)
            results.withLock { $0.append(codes.map { String(decoding: $0.payload, as: UTF8.self) }) }
            #expect(scanner.failures == 0)
        }
        #expect(results.withLock { $0 }.count == 4)
        #expect(Set(results.withLock { $0 }).count == 1 && results.withLock { $0 }.first?.count == 1)
        #expect(results.withLock { $0 }.first?.first?.count == 13)
    }

    /// A budget spent stops the pass: a step is not begun once the deadline has passed (one begun
    /// runs to its end).
    @Test func theBudgetBoundsTheSecondPass() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-second-pass.png"))
        let pass = CodeSecondPass(types: [.qr], steps: [.zxing])
        // A deadline already passed: nothing is tried at all.
        #expect(pass.scan(image, region: (0, 0, image.width, image.height), deadline: MonotonicClock.nanoseconds()).isEmpty)
        // With the time it needs, the same pass reads the code.
        let read = pass.scan(image, region: (0, 0, image.width, image.height), deadline: MonotonicClock.nanoseconds() + 60_000_000_000)
        #expect(read.count == 1, "\(read)")
    }
}
