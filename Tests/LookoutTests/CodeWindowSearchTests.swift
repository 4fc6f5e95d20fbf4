import Foundation
@testable import Lookout
@testable import LookoutService
import Testing

/// Codes in real time: ZBar over windows around the codes it read and around small changes, the
/// whole frame at a lower rate. Frames are fed as the metadata output's code queue feeds them: the
/// motion gate's changed blocks gathered, then the code analysis.
@Suite struct CodeWindowSearchTests {
    /// What a code analysis read in a frame: kind, payload and corners in frame pixels.
    struct Read: Equatable, CustomStringConvertible {
        var type: MetadataObjectType
        var payload: [UInt8]
        var corners: [Point]
        var description: String { "\(type) \(String(decoding: payload, as: UTF8.self)) \(corners)" }
    }

    /// The rate the service gives cameras.
    static let rate = MetadataOutput.videoCodeWholeFrameRate
    static let frameInterval = MediaTime(seconds: 1.0 / 30)

    /// A code analysis with the video defaults (ZBar density 2, half size from 1280 pixels up)
    /// and a motion gate in front of it, as the code queue runs them.
    final class Queue {
        let codes = CodeAnalysis(density: 2, resolution: .automatic)
        var gate = MotionGate(threshold: 4, samplesEveryPixel: true)
        var settings = CodeAnalysis.Settings()
        let types: [MetadataObjectType]
        let rectOfInterest: Rect

        init(wholeFrameRate: Double, types: [MetadataObjectType] = [.qr, .ean13], rectOfInterest: Rect = .unit) {
            settings.wholeFrameRate = wholeFrameRate
            self.types = types
            self.rectOfInterest = rectOfInterest
        }

        func read(_ frame: SampleBuffer) throws -> [Read] {
            if gate.hasChanged(frame.imageBuffer, reduction: frame.lumaReduction) {
                codes.gatherChanges(gate.changedBlocks)
            }
            let objects = try #require(codes.detect(in: frame, types: types, generation: 1, rectOfInterest: rectOfInterest,
                                                    settings: settings))
            return try objects.map { object in
                let code = try #require(object as? MachineReadableCodeObject)
                return Read(type: code.type, payload: code.payload, corners: code.pixelCorners)
            }.sorted { $0.description < $1.description }
        }
    }

    private static func frame(_ image: PixelBuffer, index: Int, width: Int, height: Int) -> SampleBuffer {
        SampleBuffer(sequence: UInt64(index), presentationTime: MediaTime(nanoseconds: Int64(index) * frameInterval.nanoseconds),
                     wallClockTime: .now(), formatDescription: VideoFormatDescription(width: width, height: height, pixelFormat: .gray),
                     imageBuffer: image)
    }

    /// A 640x480 frame: a background of 16x16 blocks whose grey levels change with `seed` (a busy
    /// scene: every block moves from frame to frame) or one grey (`seed` nil), with `code` pasted
    /// at `at`.
    private static func scene(seed: UInt64?, code: PixelBuffer?, at: (x: Int, y: Int), pool: BufferPool) throws -> PixelBuffer {
        let (width, height) = (640, 480)
        let index = try #require(pool.acquire(capacity: width * height, wait: false))
        let pixels = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        var state = seed ?? 0
        for blockRow in 0..<(height / 16) {
            for blockColumn in 0..<(width / 16) {
                var level: UInt8 = 128
                if seed != nil {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    level = UInt8(60 + (state >> 33) % 130)
                }
                for y in (blockRow * 16)..<(blockRow * 16 + 16) {
                    (pixels + y * width + blockColumn * 16).update(repeating: level, count: 16)
                }
            }
        }
        if let code {
            for y in 0..<code.height where at.y + y < height {
                for x in 0..<code.width where at.x + x < width {
                    pixels[(at.y + y) * width + at.x + x] = code[x, y]
                }
            }
        }
        return PixelBuffer(width: width, height: height, bytesPerRow: width, 
                           pool: pool, poolIndex: index)
    }

    /// The sample clip (1280x720, a QR code and an EAN-13 moving) decoded as the capture loop
    /// decodes frames not due for faces: at half size; whole frames, or a rect of interest whose
    /// edges fall between ZBar's scan lines. (Not one that cuts a code: ZBar then reads an EAN-13
    /// by joining halves read on different lines, of this image and of the images it scanned
    /// before, which no window can replay.)
    @Test(arguments: [Rect.unit, Rect(x: 0.3013, y: 0.0371, width: 0.6751, height: 0.9129)])
    func theSampleClipReadsInWindowsWhatTheWholeFrameReads(rectOfInterest: Rect) throws {
        let frames = naiveFrames(try Fixtures.bytes("sample.mjpeg"))
        try #require(frames.count == 60)
        let converter = LumaConverter()
        let pool = BufferPool(count: 2)
        let windows = Queue(wholeFrameRate: Self.rate, rectOfInterest: rectOfInterest)
        let whole = Queue(wholeFrameRate: 0, rectOfInterest: rectOfInterest)
        var reads = 0
        for (index, jpeg) in frames.enumerated() {
            let result = try jpeg.withUnsafeBytes { bytes in
                try converter.convertJPEG(bytes, pool: pool, wait: false, reduction: { _, _ in 2 })
            }
            guard case .image(let image, let width, let height) = result else {
                Issue.record("frame \(index): no buffer")
                return
            }
            let frame = Self.frame(image, index: index, width: width, height: height)
            let expected = try whole.read(frame)
            let read = try windows.read(frame)
            #expect(read == expected, "frame \(index): \(read) against \(expected)")
            reads += expected.count
        }
        #expect(reads == 120, "the QR code and the EAN-13 on every frame")
        #expect(whole.codes.windowScans == 0)
        #expect(windows.codes.windowScans >= 40, "most frames read in windows: \(windows.codes.windowScans)")
        #expect(windows.codes.wholeFrameScans + windows.codes.windowScans == 60)
    }

    /// A window is grown to the lines ZBar scans in the region: its origin a multiple of
    /// 2 x density from the region's, its size the region's modulo density, never past the region.
    @Test func windowsAreAlignedToTheRegionsScanLines() throws {
        let region: PlaneRegion = (x: 3, y: 5, width: 601, height: 350)
        let window = try #require(BarcodeScanner.aligned((x: 100, y: 50, width: 40, height: 31), to: region, density: 2))
        #expect(window == (x: 99, y: 49, width: 41, height: 32))
        #expect((window.x - region.x) % 4 == 0 && (window.y - region.y) % 4 == 0)
        #expect(window.width % 2 == region.width % 2 && window.height % 2 == region.height % 2)
        let edge = try #require(BarcodeScanner.aligned((x: 590, y: 340, width: 40, height: 40), to: region, density: 2))
        #expect(edge == (x: 587, y: 337, width: 17, height: 18), "clipped to the region's end")
        #expect(BarcodeScanner.aligned((x: 700, y: 0, width: 10, height: 10), to: region, density: 2) == nil)
        let single = try #require(BarcodeScanner.aligned((x: 10, y: 10, width: 5, height: 5), to: (0, 0, 640, 360), density: 1))
        #expect(single == (x: 10, y: 10, width: 5, height: 5))
    }

    /// A real code (qrencode's, 6 pixels a module) moving 20 pixels a frame over a busy scene:
    /// read in its window, at the corners the whole frame gives, where it was pasted.
    @Test func aMovingCodeIsReadInItsWindowAtTheCornersTheWholeFrameGives() throws {
        let code = try StillImage.load(path: Fixtures.path("qr-utf8-ete.png"))
        let pool = BufferPool(count: 2)
        let windows = Queue(wholeFrameRate: Self.rate, types: [.qr]), whole = Queue(wholeFrameRate: 0, types: [.qr])
        for index in 0..<16 {
            let at = (x: 40 + 20 * index, y: 30 + 12 * index)
            let frame = Self.frame(try Self.scene(seed: UInt64(index + 1), code: code, at: at, pool: pool),
                                   index: index, width: 640, height: 480)
            let read = try windows.read(frame)
            #expect(read == (try whole.read(frame)), "frame \(index)")
            let qr = try #require(read.first, "frame \(index): nothing read")
            #expect(qr.payload == Array("été".utf8))
            // The symbol starts after qrencode's quiet zone of 4 modules of 6 pixels.
            let box = Rect.enclosing(qr.corners)
            #expect(abs(box.x - Double(at.x + 24)) <= 2 && abs(box.y - Double(at.y + 24)) <= 2, "frame \(index): \(box)")
        }
        #expect(windows.codes.windowScans >= 10, "read in windows: \(windows.codes.windowScans) of 16")
    }

    /// A code appearing in a busy scene, where nothing was tracked and everything changes, is read
    /// within 3 frames (100 ms at 30 fps), whichever frame it appears on; the whole frame read it
    /// at once.
    @Test(arguments: 1...4)
    func aCodeAppearingInABusySceneIsReadWithinThreeFrames(appearing: Int) throws {
        let code = try StillImage.load(path: Fixtures.path("qr-utf8-ete.png"))
        let pool = BufferPool(count: 2)
        let windows = Queue(wholeFrameRate: Self.rate, types: [.qr]), whole = Queue(wholeFrameRate: 0, types: [.qr])
        var firstRead: Int?, firstReadWhole: Int?
        for index in 0..<(appearing + 6) {
            let image = try Self.scene(seed: UInt64(index + 1), code: index >= appearing ? code : nil, at: (300, 200), pool: pool)
            let frame = Self.frame(image, index: index, width: 640, height: 480)
            if firstRead == nil, !(try windows.read(frame)).isEmpty { firstRead = index }
            if firstReadWhole == nil, !(try whole.read(frame)).isEmpty { firstReadWhole = index }
        }
        #expect(firstReadWhole == appearing)
        let read = try #require(firstRead, "never read")
        #expect(read >= appearing && read - appearing <= 3, "appeared on frame \(appearing), read on \(read)")
    }

    /// In a still scene a code appearing changes a few blocks only: the window around them reads
    /// it on the frame it appears, between whole-frame scans.
    @Test func aCodeAppearingInAStillSceneIsReadOnItsFrame() throws {
        let code = try StillImage.load(path: Fixtures.path("qr-utf8-ete.png"))
        let pool = BufferPool(count: 2)
        let windows = Queue(wholeFrameRate: Self.rate, types: [.qr])
        for index in 0..<2 {
            let frame = Self.frame(try Self.scene(seed: nil, code: nil, at: (0, 0), pool: pool), index: index, width: 640, height: 480)
            #expect(try windows.read(frame).isEmpty)
        }
        let frame = Self.frame(try Self.scene(seed: nil, code: code, at: (420, 260), pool: pool), index: 2, width: 640, height: 480)
        let read = try windows.read(frame)
        #expect(read.map(\.payload) == [Array("été".utf8)])
        #expect(windows.codes.wholeFrameScans == 1, "only the first frame was read whole")
        #expect(windows.codes.windowScans == 2)
    }

    /// The service searches windows in video, live or read as fast as possible; stills and
    /// `--code-scan-rate 0` are scanned whole.
    @Test func videoSearchesWindowsUnlessToldNot() throws {
        var settings = ConfigurationSettings()
        settings.types = [.qr, .ean13]
        let live = try DetectionSetup.makeMetadataOutput(settings, in: CaptureSession(), profile: .video, isRealTime: true)
        let file = try DetectionSetup.makeMetadataOutput(settings, in: CaptureSession(), profile: .video, isRealTime: false)
        let stills = try DetectionSetup.makeMetadataOutput(settings, in: CaptureSession(), profile: .stills, isRealTime: true)
        #expect(live.codeWholeFrameRate == Self.rate)
        #expect(file.codeWholeFrameRate == Self.rate)
        #expect(stills.codeWholeFrameRate == 0)
        settings.codeScanRate = 0
        let whole = try DetectionSetup.makeMetadataOutput(settings, in: CaptureSession(), profile: .video, isRealTime: true)
        #expect(whole.codeWholeFrameRate == 0)
    }

    /// End to end on the sample clip: `--realtime` (windows) reports on every frame it analysed
    /// the codes, corners included, that reading the file as fast as possible with whole frames
    /// (`--code-scan-rate 0`) does; the file read fast with windows reports them on every frame.
    @Test func realTimeRunReportsWhatTheFastRunReports() throws {
        func reads(_ extra: [String]) throws -> [Int: [String]] {
            let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--types", "qr,ean13", "--events", "frames"] + extra)
            #expect(result.status == 0)
            var byFrame: [Int: [String]] = [:]
            for line in result.lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let frame = try #require(object["frame"] as? Int)
                let corners = try #require(object["pixel_corners"] as? [[String: Double]])
                byFrame[frame, default: []].append("\(object["kind"] ?? "") \(object["value"] ?? "") \(corners.map { [$0["x"] ?? -1, $0["y"] ?? -1] })")
            }
            return byFrame.mapValues { $0.sorted() }
        }
        let fast = try reads(["--code-scan-rate", "0"])
        let live = try reads(["--realtime"])
        #expect(fast.count == 60 && fast.values.allSatisfy { $0.count == 2 }, "the QR code and the EAN-13 on every frame")
        #expect(try reads([]) == fast, "windows in a file read as fast as possible")
        // Real time may drop a few frames as late on a loaded machine: those it analysed count.
        try #require(live.count >= 10, "frames analysed in real time: \(live.count)")
        for (frame, codes) in live { #expect(codes == fast[frame], "frame \(frame)") }
    }
}
