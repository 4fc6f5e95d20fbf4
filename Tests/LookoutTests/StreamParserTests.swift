import Foundation
import Testing
@testable import Lookout

/// Feeds bytes through a real pipe, as standard input would deliver them (a pipe of its own: the
/// test process's standard input, which other tests' children may share, is left alone).
func readStream(_ bytes: [UInt8], chunk: Int = 4096) throws -> (frames: [[UInt8]], corrupt: [String]) {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    let writeEnd = fds[1], readEnd = fds[0]
    let writer = Thread {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset..<min(bytes.count, offset + chunk)].withUnsafeBytes { part in
                part.baseAddress.map { write(writeEnd, $0, part.count) } ?? 0
            }
            if n <= 0 { break }
            offset += n
        }
        close(writeEnd)
    }
    writer.start()
    let reader = try FileDescriptorReader(descriptor: readEnd, path: "standard input")
    let parser = MJPEGStreamReader(reader: reader, prefix: [])
    var frames = [[UInt8]](), corrupt = [String]()
    while let event = try parser.next() {
        switch event {
        case .jpeg(let frame): frames.append(Array(frame))
        case .corrupt(let reason): corrupt.append(reason)
        }
    }
    return (frames, corrupt)
}

/// Splits an MJPEG stream at SOI markers that follow an EOI (only for building test inputs).
func naiveFrames(_ bytes: [UInt8]) -> [[UInt8]] {
    var starts = [0]
    for i in 2..<(bytes.count - 3) where bytes[i - 2] == 0xFF && bytes[i - 1] == 0xD9 && bytes[i] == 0xFF && bytes[i + 1] == 0xD8 {
        starts.append(i)
    }
    return zip(starts, starts.dropFirst() + [bytes.count]).map { Array(bytes[$0..<$1]) }
}

@Suite("MJPEG stream parsing", .serialized)
struct MJPEGStreamTests {
    let sample: [UInt8]
    let frames: [[UInt8]]

    init() throws {
        sample = try Fixtures.bytes("sample.mjpeg")
        frames = naiveFrames(sample)
        try #require(frames.count == 60, "the sample's frames")
    }

    @Test func wholeSampleSplitsIntoItsFrames() throws {
        let result = try readStream(sample, chunk: 65536)
        #expect(result.frames.count == 60)
        #expect(result.corrupt.isEmpty)
        #expect(result.frames == frames)
    }

    @Test func tinyReadsGiveTheSameFrames() throws {
        let part = Array(frames[0..<3].joined())
        let result = try readStream(part, chunk: 7)
        #expect(result.frames == Array(frames[0..<3]))
    }

    @Test func truncatedStreamEndsAfterTheLastWholeFrame() throws {
        let result = try readStream(Array(sample.prefix(100_000)))
        let whole = frames.prefix { _ in true }.reduce(into: (0, 0)) { acc, frame in
            if acc.0 + frame.count <= 100_000 { acc = (acc.0 + frame.count, acc.1 + 1) }
        }.1
        #expect(result.frames.count == whole)
        #expect(result.corrupt == ["stream ended inside a frame"])
    }

    @Test func frameCutShortByTheNextIsSkippedAndTheStreamGoesOn() throws {
        let cut = Array(frames[1].prefix(frames[1].count / 2))
        let stream = frames[0] + cut + frames[2] + frames[3]
        let result = try readStream(stream)
        #expect(result.frames == [frames[0], frames[2], frames[3]])
        #expect(result.corrupt.count == 1)
    }

    @Test func garbageBetweenFramesIsSkipped() throws {
        let stream = [0x00, 0x13, 0xFF] + frames[0] + Array("garbage\u{FF}".utf8) + frames[1]
        let result = try readStream(stream)
        #expect(result.frames == [frames[0], frames[1]])
    }

    @Test func eoiInsideASegmentDoesNotEndTheFrame() throws {
        // An APP1 segment holding FF D9 (as an EXIF thumbnail does) right after SOI.
        let app1: [UInt8] = [0xFF, 0xE1, 0x00, 0x08, 0xFF, 0xD9, 0xFF, 0xD8, 0xFF, 0xD9]
        let frame = [0xFF, 0xD8] + app1 + Array(frames[0].dropFirst(2))
        let result = try readStream(frame + frames[1])
        #expect(result.frames == [frame, frames[1]])
    }

    @Test func corruptEntropyDataFailsDecodingNotParsing() throws {
        var damaged = frames[0]
        let start = damaged.count / 2
        for i in start..<(start + 400) where damaged[i] != 0xFF && damaged[i] != 0x00 { damaged[i] = 0xFF; damaged[i + 1] = 0x00 }
        let decoder = JPEGDecoder()
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1280 * 720, alignment: 64)
        defer { buffer.deallocate() }
        let outcome = damaged.withUnsafeBytes { bytes -> MediaError? in
            do throws(MediaError) {
                try decoder.decodeLuma(bytes, width: 1280, height: 720, into: buffer, bytesPerRow: 1280)
                return nil
            } catch { return error }
        }
        #expect(outcome != nil)
    }
}

@Suite("Y4M stream parsing")
struct Y4MStreamTests {
    func open(_ text: String, body: [UInt8] = []) throws(MediaError) -> Y4MStreamReader {
        let path = NSTemporaryDirectory() + "lookout-\(UUID().uuidString).y4m"
        _ = FileManager.default.createFile(atPath: path, contents: Data(Array(text.utf8) + body))
        let reader = try FileDescriptorReader(path: path)
        unlink(path)
        return try Y4MStreamReader(reader: reader, prefix: [])
    }

    @Test(arguments: [("qr-420.y4m", PixelFormat.yuv420), ("qr-mono.y4m", PixelFormat.gray)])
    func readsFramesAndFormat(name: String, format: PixelFormat) throws {
        let reader = try FileDescriptorReader(path: Fixtures.path(name))
        let stream = try Y4MStreamReader(reader: reader, prefix: [])
        #expect(stream.format.width == 320 && stream.format.height == 240)
        #expect(stream.format.pixelFormat == format)
        #expect(stream.format.frameRate == 10)
        var count = 0
        while let event = try stream.next() {
            guard case .frame = event else { Issue.record("unexpected \(event)"); break }
            count += 1
        }
        #expect(count == 2)
    }

    @Test func truncatedFrameIsCorrupt() throws {
        let stream = try open("YUV4MPEG2 W4 H2 F25:1 Cmono\nFRAME\n", body: [1, 2, 3, 4, 5, 6, 7, 8, 70, 82, 65, 77, 69, 10, 1])
        guard case .frame = try stream.next() else { Issue.record("first frame should read"); return }
        guard case .corrupt(let reason) = try stream.next() else { Issue.record("second frame should be corrupt"); return }
        #expect(reason.contains("ended"))
        #expect(try stream.next() == nil)
    }

    @Test func frameParametersAreSkipped() throws {
        let stream = try open("YUV4MPEG2 W2 H2 F25:1 Cmono\nFRAME Ip XYZ=1\n", body: [1, 2, 3, 4] + Array("FRAME\n".utf8) + [5, 6, 7, 8])
        guard case .frame(let first) = try stream.next(), case .frame(let second) = try stream.next() else {
            Issue.record("two frames expected")
            return
        }
        _ = first
        #expect(Array(second) == [5, 6, 7, 8])
        #expect(try stream.next() == nil)
    }

    @Test func highBitDepthIsRefusedClearly() {
        let error = #expect(throws: MediaError.self) { _ = try open("YUV4MPEG2 W4 H2 F25:1 C420p10\n") }
        guard case .unsupportedY4M(_, let reason)? = error else {
            Issue.record("expected unsupportedY4M, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("C420p10"))
    }

    @Test func missingSizeIsRefused() {
        #expect(throws: MediaError.self) { _ = try open("YUV4MPEG2 F25:1\n") }
    }
}
