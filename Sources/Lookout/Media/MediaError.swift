/// Why a frame, a stream or an image could not be read. Each case carries its cause.
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file or device does not exist.
    case notFound(path: String)
    /// The file exists but cannot be opened or read (permissions, a directory, ...).
    case unreadable(path: String, Errno)
    /// A read failed part-way through.
    case readFailed(path: String, Errno)
    /// The stream is neither MJPEG nor Y4M; carries its first bytes for the message.
    case unrecognizedStream(path: String, firstBytes: [UInt8])
    /// A Y4M stream Lookout cannot take (bad header, 16-bit samples, interlacing...).
    case unsupportedY4M(path: String, reason: String)
    /// A stream whose pictures are larger than --max-pixels allows (`reason`: `PixelBudget.exceeded`).
    case overPixelBudget(path: String, reason: String)
    /// An image or frame that the decoder rejected (truncated, bad Huffman code, ...).
    case corruptImage(reason: String)
    /// A still image Lookout cannot decode: `reason` completes a sentence that starts with the
    /// path ("is an empty file", "is not an image (...)"); `detail` holds the library's own text.
    case unsupportedImage(path: String, reason: String, detail: String? = nil)
    /// An input that needs ffmpeg (a URL, an MP4 file), and no ffmpeg program to run.
    case ffmpegMissing(path: String, reason: String)
    /// A URL whose scheme the installed ffmpeg does not read.
    case unsupportedURL(url: String, scheme: String)
    /// ffmpeg could not read the input: `reason` says why in Lookout's words ("no video stream"),
    /// `detail` is what ffmpeg said (for --verbose).
    case ffmpegFailed(path: String, reason: String, detail: String? = nil)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(path): no such file or device"
        case .unreadable(let path, let errno):
            return errno == .isDirectory ? "\(path) is a directory" : "\(path) cannot be read: \(errno)"
        case .readFailed(let path, let errno):
            return "reading \(path) failed: \(errno)"
        case .unrecognizedStream(let path, let bytes):
            let shown = bytes.isEmpty ? "it is empty" : "it starts with bytes \(Self.hex(bytes.prefix(8)))"
            return "\(path) is not an MJPEG or Y4M stream (\(shown))"
        case .unsupportedY4M(let path, let reason):
            return "\(path) is a Y4M stream Lookout cannot read: \(reason)"
        case .overPixelBudget(let path, let reason):
            return "\(path): \(reason)"
        case .corruptImage(let reason):
            return "corrupt image: \(reason)"
        case .unsupportedImage(let path, let reason, _):
            return "\(path): \(reason)"
        case .ffmpegMissing(let path, let reason):
            return "reading \(path) needs ffmpeg, which \(reason) (install it: apt-get install ffmpeg)"
        case .unsupportedURL(let url, let scheme):
            return "\(url): ffmpeg does not read \(scheme):// addresses (it reads rtsp, rtmp, http, https, udp, tcp, srt and more; see ffmpeg -protocols)"
        case .ffmpegFailed(let path, let reason, _):
            return "\(path): \(reason)"
        }
    }

    /// What a library said about the failure, beyond the sentence (for --verbose).
    public var detail: String? {
        switch self {
        case .unsupportedImage(_, _, let detail?) where !detail.isEmpty: return detail
        case .ffmpegFailed(_, _, let detail?) where !detail.isEmpty: return detail
        default: return nil
        }
    }

    /// Bytes as "FF D8 00".
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { byte -> String in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}
