// libFuzzer targets over Lookout's parsers and decoders, in one binary: LOOKOUT_FUZZ_TARGET picks
// the target. scripts/fuzz builds this with -sanitize=fuzzer,address -DLOOKOUT_FUZZ, and the
// program hands itself to libFuzzer's driver; in an ordinary build it is an empty program.
//
//   mjpeg    an MJPEG stream through the frame scanner, the reader, and every JPEG decoding path
//            (header, whole, half size, the 1/8-scale change look)
//   y4m      a Y4M stream through the header parser and the frame reader
//   jpeg     one JPEG image through the decoder; afterwards a good image must decode
//   payload  code bytes through the text decoder and the JSON line encoder: every line must parse
//   mqtt     text through the MQTT broker address parser
//
// Every target checks an invariant a crash would not show: after any input, the JPEG decoder
// decodes a known-good image (a bad frame must never blind Lookout), and payload lines are JSON.
import Foundation
@testable import Lookout

enum FuzzTarget: String {
    case mjpeg, y4m, jpeg, payload, mqtt

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["LOOKOUT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("LOOKOUT_FUZZ_TARGET must be one of mjpeg, y4m, jpeg, payload, mqtt\n".utf8))
            exit(64)
        }
        return target
    }()
}

/// A small budget, so that inputs declaring big pictures are refused fast, as in production.
let budget = PixelBudget(maximumPixels: 1 << 20)

/// A 16x16 gray baseline JPEG: what every decoder must still read after any input.
let goodJPEG: [UInt8] = {
    let path = ProcessInfo.processInfo.environment["LOOKOUT_FUZZ_GOOD_JPEG"] ?? "Tests/Fuzz/good.jpg"
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read the known-good JPEG \(path) (LOOKOUT_FUZZ_GOOD_JPEG)\n".utf8))
        exit(66)
    }
    return Array(data)
}()

func requireGoodJPEGDecodes(_ converter: LumaConverter, pool: BufferPool) {
    let result = try? goodJPEG.withUnsafeBytes { try converter.convertJPEG($0, pool: pool, wait: false) }
    guard case .image? = result else { fatalError("a known-good JPEG no longer decodes after this input") }
}

/// The input as a file the readers open by path, as `--input` does.
func withInputFile(_ data: UnsafeRawBufferPointer, _ body: (String) -> Void) {
    var template = Array("/tmp/lookout-fuzz-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0)
    unlink(&template) // gone once closed; opened again through /proc/self/fd
    defer { close(fd) }
    var offset = 0
    while offset < data.count {
        let n = write(fd, data.baseAddress! + offset, data.count - offset)
        precondition(n > 0)
        offset += n
    }
    lseek(fd, 0, SEEK_SET)
    body("/proc/self/fd/\(fd)")
}

func fuzzStream(_ data: UnsafeRawBufferPointer) {
    let pool = BufferPool(count: 2)
    let converter = LumaConverter(pixelBudget: budget)
    withInputFile(data) { path in
        guard let source = try? RecordedStreamSource(path: path, pacing: .asFastAsPossible, frameRate: nil,
                                                    pixelBudget: budget) else { return }
        var frames = 0
        while frames < 64, let frame = try? source.nextFrame() {
            frames += 1
            switch frame.payload {
            case .jpeg(let bytes):
                _ = try? converter.jpegIsUnchanged(bytes, threshold: 4)
                for reduction in [1, 2] {
                    if case .image(let image, _, _)? = try? converter.convertJPEG(bytes, pool: pool, wait: false,
                                                                                  reduction: { _, _ in reduction }) {
                        _ = image[0, 0]
                    }
                }
            case .raw(let bytes, let bytesPerRow):
                if case .image(let image, _, _)? = try? converter.convertRaw(bytes, format: frame.format, bytesPerRow: bytesPerRow,
                                                                             pool: pool, wait: false) {
                    _ = image[image.width - 1, image.height - 1]
                }
            case .corrupt:
                break
            }
        }
    }
    requireGoodJPEGDecodes(converter, pool: pool)
}

func fuzzJPEG(_ data: UnsafeRawBufferPointer) {
    let decoder = JPEGDecoder()
    let plane = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 64)
    defer { plane.deallocate() }
    if let size = try? decoder.size(of: data), budget.allows(width: size.width, height: size.height) {
        try? decoder.decodeLuma(data, width: size.width, height: size.height, into: plane, bytesPerRow: size.width)
        let half = JPEGDecoder.scaledSize(width: size.width, height: size.height, reduction: 2)
        try? decoder.decodeLuma(data, width: half.width, height: half.height, into: plane, bytesPerRow: half.width)
        _ = try? decoder.decodeLumaThumbnail(data, width: size.width, height: size.height, into: plane)
    }
    let good = goodJPEG.withUnsafeBytes { jpeg in
        (try? decoder.size(of: jpeg)).map { size in
            (try? decoder.decodeLuma(jpeg, width: size.width, height: size.height, into: plane, bytesPerRow: size.width)) != nil
        } ?? false
    }
    if !good { fatalError("a known-good JPEG no longer decodes after this input") }
}

func fuzzPayload(_ data: UnsafeRawBufferPointer) {
    let payload = Array(data)
    let pool = BufferPool(count: 1)
    let index = pool.acquire(capacity: 64, wait: false)!
    let image = PixelBuffer(width: 8, height: 8, bytesPerRow: 8, pool: pool, poolIndex: index)
    let frame = SampleBuffer(sequence: 0, presentationTime: .zero, wallClockTime: .now(),
                             formatDescription: VideoFormatDescription(width: 8, height: 8, pixelFormat: .gray),
                             imageBuffer: image)
    let code = MachineReadableCodeObject(type: .qr, frame: frame, payload: payload,
                                         pixelCorners: [Point(x: 1, y: 1), Point(x: 1, y: 7), Point(x: 7, y: 7), Point(x: 7, y: 1)])
    var encoder = DetectionLineEncoder(source: String(platformPath: payload))
    let line = encoder.encode(code)
    // U+2028 and U+2029 (E2 80 A8/A9) break JavaScript that evaluates a line: they must be escaped.
    let hasSeparator = line.indices.dropLast(2).contains { line[$0] == 0xE2 && line[$0 + 1] == 0x80 && (line[$0 + 2] & 0xFE) == 0xA8 }
    guard line.last == 0x0A, line.dropLast().allSatisfy({ $0 >= 0x20 && $0 != 0x7F }), !hasSeparator,
          let object = try? JSONSerialization.jsonObject(with: Data(line.dropLast())) as? [String: Any],
          object["value"] as? String == code.stringValue else {
        fatalError("not one valid JSON line for payload \(payload): \(String(decoding: line, as: UTF8.self))")
    }
}

func fuzzMQTTAddress(_ data: UnsafeRawBufferPointer) {
    let text = String(decoding: data, as: UTF8.self)
    if let address = try? MQTTBrokerAddress(text) {
        _ = address.port
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = UnsafeRawBufferPointer(start: bytes, count: count)
    switch FuzzTarget.selected {
    case .mjpeg, .y4m: fuzzStream(data)
    case .jpeg: fuzzJPEG(data)
    case .payload: fuzzPayload(data)
    case .mqtt: fuzzMQTTAddress(data)
    }
    return 0
}

#if LOOKOUT_FUZZ
/// libFuzzer's entry for programs that have a main of their own (SwiftPM gives every executable one).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

var argumentCount = CommandLine.argc
var argumentVector = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &argumentVector, fuzz))
#endif
