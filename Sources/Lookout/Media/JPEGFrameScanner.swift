import Glibc

/// Finds whole JPEG images in a byte stream of concatenated JPEGs (an MJPEG elementary stream,
/// as `ffmpeg -f mjpeg` writes and many cameras send).
///
/// It follows the marker structure (segment lengths, then entropy-coded data up to EOI) rather
/// than searching for FF D9, so an EXIF thumbnail's EOI or a stray FF D9 inside a segment never
/// cuts a frame short. Scanning is incremental: calling again with more bytes resumes where the
/// last call stopped.
struct JPEGFrameScanner {
    enum Outcome: Equatable {
        /// The bytes so far hold no complete frame yet.
        case needMoreData
        /// A complete frame: SOI through EOI.
        case frame(Range<Int>)
        /// A broken frame to skip; scanning resumes at `range.upperBound` after a reset.
        case corrupt(Range<Int>, reason: String)
        /// The first `count` bytes hold no frame start and can be discarded.
        case junk(count: Int)
    }

    /// Frames larger than this are treated as corrupt rather than buffered without end.
    static let maximumFrameBytes = 64 << 20

    private enum Phase { case seekingStart, markers, entropyCodedData }
    private var phase = Phase.seekingStart
    private var position = 0
    private(set) var frameStart = 0

    /// True while a frame has started but not ended: bytes left at end of stream are a truncated frame.
    var isInsideFrame: Bool { phase != .seekingStart }

    mutating func reset() {
        phase = .seekingStart
        position = 0
        frameStart = 0
    }

    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let count = bytes.count
        while true {
            if phase != .seekingStart, position - frameStart > Self.maximumFrameBytes {
                return .corrupt(frameStart..<min(position, count), reason: "frame larger than 64 MiB")
            }
            switch phase {
            case .seekingStart:
                var i = position
                while i + 1 < count, !(bytes[i] == 0xFF && bytes[i + 1] == 0xD8) { i += 1 }
                if i + 1 >= count {
                    // Keep a trailing FF: it may be the first half of the next SOI.
                    let junk = count > 0 && bytes[count - 1] == 0xFF ? count - 1 : count
                    return junk > 0 ? .junk(count: junk) : .needMoreData
                }
                frameStart = i
                position = i + 2
                phase = .markers

            case .markers:
                guard position + 1 < count else { return .needMoreData }
                guard bytes[position] == 0xFF else {
                    return .corrupt(frameStart..<position, reason: "no marker where a JPEG segment should start")
                }
                let marker = bytes[position + 1]
                switch marker {
                case 0xFF:
                    position += 1 // fill byte before a marker
                case 0xD8:
                    return .corrupt(frameStart..<position, reason: "frame cut short by the next frame's start")
                case 0xD9:
                    return .corrupt(frameStart..<(position + 2), reason: "frame has no image data")
                case 0x01, 0xD0...0xD7:
                    position += 2 // standalone markers carry no length
                default:
                    guard position + 3 < count else { return .needMoreData }
                    let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
                    guard length >= 2 else {
                        return .corrupt(frameStart..<(position + 4), reason: "segment with an impossible length")
                    }
                    position += 2 + length
                    if marker == 0xDA { phase = .entropyCodedData }
                }

            case .entropyCodedData:
                var i = position
                while i + 1 < count {
                    guard bytes[i] == 0xFF else {
                        // Entropy-coded data is most of a frame: let memchr find the next FF.
                        let rest = count - 1 - i
                        guard let found = memchr(bytes.baseAddress! + i, 0xFF, rest) else { i = count - 1; break }
                        i = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
                        continue
                    }
                    let next = bytes[i + 1]
                    if next == 0x00 || (0xD0...0xD7).contains(next) {
                        i += 2 // stuffed zero or restart marker: still image data
                    } else if next == 0xFF {
                        i += 1
                    } else if next == 0xD9 {
                        return .frame(frameStart..<(i + 2))
                    } else if next == 0xD8 {
                        return .corrupt(frameStart..<i, reason: "frame cut short by the next frame's start")
                    } else {
                        break // another segment: a progressive scan, DNL, a table between scans
                    }
                }
                if i + 1 < count {
                    position = i
                    phase = .markers
                } else {
                    position = max(position, i)
                    return .needMoreData
                }
            }
        }
    }
}
