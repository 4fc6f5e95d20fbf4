import Dispatch
import Foundation
import Testing
@testable import Lookout

/// Frames whose JPEG header cannot be parsed, each made from a good frame: what a glitching camera
/// or a damaged file hands over. After any of them the next good frame must be analysed as if
/// nothing had happened.
enum DamagedJPEG {
    /// The frame header's offset (the FF C0 marker) in a baseline JPEG.
    static func frameHeader(_ jpeg: [UInt8]) throws -> Int {
        try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }, "no baseline frame header")
    }

    /// Named damaged variants of `jpeg`, a baseline JPEG.
    static func variants(of jpeg: [UInt8]) throws -> [(name: String, bytes: [UInt8])] {
        let sof = try frameHeader(jpeg)
        func patched(_ jpeg: [UInt8], _ change: (inout [UInt8], Int) -> Void) -> [UInt8] {
            var copy = jpeg
            change(&copy, sof)
            return copy
        }
        return [
            ("12-bit precision", patched(jpeg) { $0[$1 + 4] = 12 }),
            ("16-bit precision", patched(jpeg) { $0[$1 + 4] = 16 }),
            ("no components", patched(jpeg) { $0[$1 + 9] = 0 }),
            ("zero height", patched(jpeg) { $0[$1 + 5] = 0; $0[$1 + 6] = 0 }),
            ("zero width", patched(jpeg) { $0[$1 + 7] = 0; $0[$1 + 8] = 0 }),
            ("lossless frame", patched(jpeg) { $0[$1 + 1] = 0xC3 }),
            ("component sampling 0x0", patched(jpeg) { $0[$1 + 11] = 0x00 }),
            ("two frame headers", Array(jpeg[..<sof]) + Array(jpeg[sof..<(sof + 19)]) + Array(jpeg[sof...])),
            // SOI, a comment, a scan header and noise: bytes that only look like a frame.
            ("no frame header", [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x04, 0x61, 0x62, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00,
                                 0x00, 0x3F, 0x00] + (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) & 0x7F | 0x01 }
                + [0xFF, 0xD9]),
        ]
    }
}

@Suite("Recovery after damaged frames", .serialized)
struct CorruptFrameRecoveryTests {
    let good: [UInt8]
    let damaged: [(name: String, bytes: [UInt8])]

    init() throws {
        good = try Fixtures.bytes("frame0.jpg")
        damaged = try DamagedJPEG.variants(of: good)
    }

    @Test func theDecoderIsAsGoodAsNewAfterEveryFailure() throws {
        let decoder = JPEGDecoder()
        let plane = UnsafeMutableRawPointer.allocate(byteCount: 1280 * 720, alignment: 64)
        defer { plane.deallocate() }
        for bad in damaged {
            #expect(throws: MediaError.self, "\(bad.name)") {
                try bad.bytes.withUnsafeBytes { jpeg in
                    let size = try decoder.size(of: jpeg)
                    try decoder.decodeLuma(jpeg, width: size.width, height: size.height, into: plane, bytesPerRow: size.width)
                }
            }
            // Every way of decoding works on the next good frame: header, whole, half, 1/8.
            try good.withUnsafeBytes { jpeg in
                let size = try decoder.size(of: jpeg)
                #expect(size == (1280, 720), "after \(bad.name)")
                try decoder.decodeLuma(jpeg, width: 1280, height: 720, into: plane, bytesPerRow: 1280)
                try decoder.decodeLuma(jpeg, width: 640, height: 360, into: plane, bytesPerRow: 640)
                _ = try decoder.decodeLumaThumbnail(jpeg, width: 1280, height: 720, into: plane)
            }
        }
    }

    /// A stream of damaged and good frames in turn: damaged ones at even positions.
    var alternatingStream: [UInt8] {
        damaged.flatMap { $0.bytes + good } + good
    }

    var goodSequences: Set<UInt64> {
        Set((0..<damaged.count).map { UInt64(2 * $0 + 1) } + [UInt64(2 * damaged.count)])
    }

    /// Runs a metadata output looking for QR codes over `input`; returns the frames a QR code was
    /// reported on.
    func qrFrames(_ input: CaptureInput, configure: (MetadataOutput) -> Void = { _ in },
                  resolution: CodeScanResolution = .full) throws -> (frames: Set<UInt64>, session: CaptureSession) {
        let session = CaptureSession()
        try session.addInput(input)
        let output = MetadataOutput(codeScanResolution: resolution)
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.qr])
        configure(output)
        let recorder = ObjectRecorder()
        output.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.recovery"))
        run(session)
        #expect(output.statistics.drops[.corrupt] == damaged.count)
        return (Set(recorder.objects.withLock { $0 }.filter { $0.type == .qr }.map(\.frameSequence)), session)
    }

    func file(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "lookout-recovery-\(UUID().uuidString).mjpeg"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    @Test func wholeFramesAreAnalysedAgainAfterEachDamagedOne() throws {
        let path = file(alternatingStream)
        defer { unlink(path) }
        let result = try qrFrames(try AssetReaderInput(path: path))
        #expect(result.frames == goodSequences)
        #expect(result.session.statistics.framesCorrupt == damaged.count)
    }

    @Test func halfSizeDecodingRecoversToo() throws {
        let path = file(alternatingStream)
        defer { unlink(path) }
        let result = try qrFrames(try AssetReaderInput(path: path), resolution: .half)
        #expect(result.frames == goodSequences)
        #expect(result.session.statistics.framesDecodedAtHalfSize == goodSequences.count)
    }

    @Test func changeDetectionRecoversToo() throws {
        // Damaged frames meet the 1/8-scale look (a reference exists) and the full decode (it was
        // just reset) in turn; every good frame still gets the code, decoded or restamped.
        let path = file(good + alternatingStream)
        defer { unlink(path) }
        let result = try qrFrames(try AssetReaderInput(path: path)) { $0.unchangedFrameThreshold = 4 }
        #expect(result.frames == Set(goodSequences.map { $0 + 1 } + [0]))
    }

    @Test func cameraBuffersRecoverToo() throws {
        // Each frame comes once the one before it has been analysed or counted as corrupt (and a
        // moment for the queue to finish with it), so the code queue is idle for it (a camera never
        // waits: a busy queue would drop it as late) and every good one must be analysed.
        let session = CaptureSession()
        let output = MetadataOutput()
        var script = [ScriptedV4L2Driver.Step]()
        var sequence: UInt32 = 0
        func add(_ bytes: [UInt8]) {
            let before = Int(sequence)
            script.append(.until { output.statistics.framesAnalysed + session.statistics.framesCorrupt >= before })
            script.append(.pause(milliseconds: 50))
            script.append(.jpeg(sequence: sequence, timestampNs: Int64(sequence + 1) * 33_000_000, bytes: bytes))
            sequence += 1
        }
        for bad in damaged {
            add(bad.bytes)
            add(good)
        }
        add(good)
        let driver = ScriptedV4L2Driver(jpegScript: script, jpegSize: (1280, 720))
        // A watchdog longer than any wait for the analysis: a slow machine is no lost camera.
        let input = try CaptureDeviceInput(device: try CaptureDevice(path: "/dev/scripted0", driver: driver), watchdogTimeout: 60)
        try session.addInput(input)
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.qr])
        let recorder = ObjectRecorder()
        output.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.recovery"))
        session.startRunning()
        #expect(eventually { output.statistics.framesAnalysed >= goodSequences.count })
        session.stopRunning()
        #expect(session.statistics.framesCorrupt == damaged.count)
        #expect(output.statistics.drops[.late] == 0)
        #expect(Set(recorder.objects.withLock { $0 }.map(\.frameSequence)) == goodSequences)
    }

    @Test func aRunOfDamagedFramesIsReportedAsItGrows() throws {
        // 70 damaged frames, a good one, then 30 damaged again: reports at 30 and 60, and at 30
        // again for the second run (a good frame ends a run).
        let bad = damaged[0].bytes
        let path = file(Array(repeating: bad, count: 70).flatMap { $0 } + good + Array(repeating: bad, count: 30).flatMap { $0 })
        defer { unlink(path) }
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: path))
        let output = MetadataOutput()
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.qr])
        let reports = Locked<[Int]>([])
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.damage")) { event in
            switch event {
            case .framesDamaged(let count, let reason):
                #expect(reason.contains("precision"), "\(reason)")
                reports.withLock { $0.append(count) }
            case .didStopRunning: stopped.signal()
            default: break
            }
        }
        session.startRunning()
        #expect(stopped.wait(timeout: .now() + 60) == .success)
        #expect(reports.withLock { $0 } == [30, 60, 30])
        #expect(output.statistics.framesAnalysed == 1)
    }
}
