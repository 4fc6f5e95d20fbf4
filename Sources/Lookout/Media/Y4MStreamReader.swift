/// Reads a YUV4MPEG2 stream (`ffmpeg -f yuv4mpegpipe`): a text header, then frames of raw planes.
///
/// Only the luma plane matters to the detectors; it is the first `width * height` bytes of every
/// frame in each 8-bit layout Y4M defines, so frames are handed over without conversion.
final class Y4MStreamReader {
    enum Event {
        /// A frame whose first plane is luma, valid until the next call.
        case frame(UnsafeRawBufferPointer)
        case corrupt(reason: String)
    }

    let format: VideoFormatDescription
    private let frameBytes: Int
    private let reader: FileDescriptorReader
    private var pending: [UInt8]
    private var pendingOffset = 0
    private let frame: UnsafeMutableRawPointer
    /// Set once the frame structure is lost: Y4M has no sync marker to find the next frame by.
    private var lostSync = false

    /// Parses the stream header. `prefix` holds bytes already read while sniffing. Every number
    /// in it is checked before use: sizes against `budget`, the rate against `FrameRate`.
    /// `overBudget` names a refused size for a stream that is not itself the input (ffmpeg's
    /// output, for the video it decodes); by default the stream is named as a Y4M stream.
    init(reader: FileDescriptorReader, prefix: [UInt8], budget: PixelBudget = .standard,
         overBudget: ((_ width: Int, _ height: Int) -> MediaError)? = nil) throws(MediaError) {
        self.reader = reader
        self.pending = prefix
        let path = reader.path
        guard let header = try Self.readLine(reader: reader, pending: &pending, offset: &pendingOffset, limit: 1024) else {
            throw .unsupportedY4M(path: path, reason: "the header line is missing or longer than 1 KiB")
        }
        let fields = header.split(separator: " ")
        guard fields.first == "YUV4MPEG2" else {
            throw .unsupportedY4M(path: path, reason: "the header does not start with YUV4MPEG2")
        }
        var width = 0, height = 0
        var frameRate: Double?
        var colorspace = "420jpeg"
        for field in fields.dropFirst() {
            guard let tag = field.first else { continue }
            let value = field.dropFirst()
            switch tag {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]),
                      let rate = FrameRate.checked(numerator: numerator, denominator: denominator) else {
                    throw .unsupportedY4M(path: path, reason: "its frame rate F\(Self.shown(value)) is not a rate \(FrameRate.rangeDescription)")
                }
                frameRate = rate
            case "C": colorspace = String(value)
            default: break // interlacing, aspect and X-extensions do not change the luma plane
            }
        }
        guard width > 0, height > 0 else {
            throw .unsupportedY4M(path: path, reason: "the header has no valid W and H")
        }
        guard budget.allows(width: width, height: height) else {
            if let overBudget { throw overBudget(width, height) }
            throw .overPixelBudget(path: path, reason: budget.exceeded(width: width, height: height))
        }
        let luma = width * height
        let chromaWidth = (width + 1) / 2
        let pixelFormat: PixelFormat
        switch colorspace {
        case "420jpeg", "420paldv", "420mpeg2", "420":
            pixelFormat = .yuv420
            frameBytes = luma + 2 * chromaWidth * ((height + 1) / 2)
        case "422":
            pixelFormat = .yuv422p
            frameBytes = luma + 2 * chromaWidth * height
        case "444":
            pixelFormat = .yuv444p
            frameBytes = 3 * luma
        case "mono":
            pixelFormat = .gray
            frameBytes = luma
        default:
            throw .unsupportedY4M(path: path, reason: "colour space C\(colorspace) (Lookout reads 8-bit 420, 422, 444 and mono)")
        }
        format = VideoFormatDescription(width: width, height: height, pixelFormat: pixelFormat, frameRate: frameRate)
        // Frame headers are read into this buffer too: it holds at least "FRAME\n" (a 2x2 mono
        // frame is 4 bytes; AddressSanitizer found the overflow).
        frame = .allocate(byteCount: max(frameBytes, Self.frameHeader.count), alignment: 64)
    }

    deinit { frame.deallocate() }

    /// A header value for a message: at most 40 characters, printable ASCII only.
    private static func shown(_ value: Substring) -> String {
        let text = String(value.prefix(40).map { (0x21...0x7E).contains($0.asciiValue ?? 0) ? $0 : "?" })
        return value.count > 40 ? text + "..." : text
    }

    func next() throws(MediaError) -> Event? {
        guard !lostSync else { return nil }
        switch try readFrameHeader() {
        case .endOfStream:
            return nil
        case .truncated:
            lostSync = true
            return .corrupt(reason: "stream ended inside a frame header")
        case .malformed:
            lostSync = true
            return .corrupt(reason: "a frame does not start with FRAME; reading stops here")
        case .frame:
            break
        }
        // Bytes left over from sniffing come first, then straight into the frame buffer.
        let fromPending = min(pending.count - pendingOffset, frameBytes)
        if fromPending > 0 {
            pending.withUnsafeBytes { frame.copyMemory(from: $0.baseAddress! + pendingOffset, byteCount: fromPending) }
            pendingOffset += fromPending
        }
        let got = fromPending + (try reader.readFully(into: frame + fromPending, count: frameBytes - fromPending))
        if got < frameBytes {
            return reader.isCancelled ? nil : .corrupt(reason: "stream ended inside a frame")
        }
        return .frame(UnsafeRawBufferPointer(start: frame, count: frameBytes))
    }

    private enum FrameHeader { case frame, endOfStream, truncated, malformed }

    /// Reads "FRAME\n" with one read in the usual case; frame parameters, rare, byte by byte.
    private static let frameHeader = Array("FRAME\n".utf8)

    private func readFrameHeader() throws(MediaError) -> FrameHeader {
        let header = Self.frameHeader
        if pendingOffset >= pending.count {
            pending = []
            pendingOffset = 0
            let got = try reader.readFully(into: frame, count: header.count)
            guard got == header.count else { return got == 0 || reader.isCancelled ? .endOfStream : .truncated }
            let bytes = UnsafeRawBufferPointer(start: frame, count: header.count)
            if bytes.elementsEqual(header) { return .frame }
            guard bytes.starts(with: header.dropLast()), bytes[5] == UInt8(ascii: " ") else { return .malformed }
            // "FRAME " with parameters: skip them up to the newline.
            guard try Self.readLine(reader: reader, pending: &pending, offset: &pendingOffset, limit: 1024) != nil else {
                return .malformed
            }
            return .frame
        }
        guard let line = try Self.readLine(reader: reader, pending: &pending, offset: &pendingOffset, limit: 1024) else {
            return .endOfStream
        }
        return line.hasPrefix("FRAME") ? .frame : .malformed
    }

    /// Reads one line without its newline; nil at end of stream (or a line over `limit`).
    private static func readLine(reader: FileDescriptorReader, pending: inout [UInt8], offset: inout Int,
                                 limit: Int) throws(MediaError) -> String? {
        var line = [UInt8]()
        let one = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { one.deallocate() }
        while line.count <= limit {
            let byte: UInt8
            if offset < pending.count {
                byte = pending[offset]
                offset += 1
            } else {
                guard try reader.read(into: one, count: 1) == .bytes(1) else { return nil }
                byte = one.load(as: UInt8.self)
            }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}
