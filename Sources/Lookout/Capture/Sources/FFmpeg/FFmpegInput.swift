#if canImport(Glibc)
import Glibc
#endif

/// A capture input for anything ffmpeg reads: network cameras (`rtsp://`, `http://`, ...) and
/// video files Lookout does not parse itself (MP4, MKV, ...).
///
/// Lookout runs `ffmpeg` (Debian's package) as a child that decodes and writes planar frames to a
/// pipe as YUV4MPEG2: luma only (`gray`) when nothing needs colour, 4:2:0 when pictures are asked
/// for (the web view, snapshots, recordings), so colour pictures come from the same child, made
/// by TurboJPEG only when wanted. The detectors read the luma plane in place; Lookout converts
/// nothing.
///
/// A network source is live, like a camera: when no frame arrives within the watchdog time, or
/// ffmpeg exits, the input reports the loss (`camera_lost`), starts ffmpeg again with backoff and
/// reports the first frame back (`camera_found`). A file ends where ffmpeg ends.
// @unchecked: restates its base class's; its source is the capture thread's.
public final class FFmpegInput: CaptureInput, @unchecked Sendable {
    public struct Options: Sendable {
        /// Ask ffmpeg for 4:2:0 frames (colour pictures) rather than luma only.
        public var carriesChroma = false
        /// ffmpeg's `-hwaccel` (`auto`, `vaapi`, `cuda`, ...), or nil for software decoding.
        public var hardwareAcceleration: String?
        /// Seconds without a frame before a network source counts as lost and ffmpeg is restarted.
        public var watchdogTimeout = 3.0
        /// Restart ffmpeg after a loss (true), or end the stream with `DeviceError.lost`.
        public var reconnectsAfterLoss = true
        /// Files only: real-time pacing (`-re`), with late frames dropped like a camera's.
        public var pacing = AssetReaderInput.Pacing.asFastAsPossible
        /// The program to run; default `ffmpeg` on $PATH (or $LOOKOUT_FFMPEG).
        public var program: String?

        public init() {}
    }

    /// The stream's format; size 0x0 until a network source's first frame.
    public var formatDescription: VideoFormatDescription { ffmpeg.format.withLock { $0 } }
    /// True for a network address (live, reconnecting), false for a file.
    public let isNetworkSource: Bool

    private let ffmpeg: FFmpegSource

    /// Checks that ffmpeg is there and reads `path`'s scheme; a file is opened at once (its first
    /// frame's header read, so a file ffmpeg cannot read fails here), a network source on the
    /// session's first frame.
    public init(path: String, options: Options = Options(), pixelBudget: PixelBudget = .standard) throws(CaptureError) {
        let source: FFmpegSource
        do {
            source = try FFmpegSource(path: path, options: options, pixelBudget: pixelBudget)
        } catch {
            throw .input(error)
        }
        ffmpeg = source
        isNetworkSource = source.isNetwork
        super.init(source: source)
    }

    /// True when `path` is a URL (`scheme://...`) rather than a file.
    public static func isURL(_ path: String) -> Bool {
        guard let range = path.firstRange(of: "://") else { return false }
        let scheme = path[..<range.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// The file a `file:` URL names (`file:///path`, `file://localhost/path`, percent escapes
    /// decoded), or nil for any other path or URL. A file is read once to its end; as a URL it
    /// would be watched and restarted like a camera. Throws for another host's file.
    public static func fileURLPath(_ path: String) throws(MediaError) -> String? {
        guard isURL(path), let scheme = path.firstRange(of: "://"), path[..<scheme.lowerBound].lowercased() == "file" else { return nil }
        var rest = path[scheme.upperBound...]
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/") else { throw .notFound(path: redacted(path)) }
        return percentDecoded(rest)
    }

    /// `%XX` escapes replaced by their bytes; a `%` without two hex digits is kept as it is.
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let pair = utf8.dropFirst(index + 1).prefix(2)
            if utf8[index] == UInt8(ascii: "%"), pair.count == 2, pair.allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }),
               let byte = UInt8(String(decoding: pair, as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(platformPath: bytes)
    }

    /// `path` with a URL's password replaced by `***`, for lines and messages.
    public static func redacted(_ path: String) -> String {
        guard let range = passwordRange(in: path) else { return path }
        var shown = path
        shown.replaceSubrange(range, with: "***")
        return shown
    }

    /// Where a URL's password is (`scheme://user:PASSWORD@host/...`), or nil for none.
    static func passwordRange(in path: String) -> Range<String.Index>? {
        guard isURL(path), let scheme = path.firstRange(of: "://") else { return nil }
        let rest = path[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
              let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        return rest.index(after: colon)..<at
    }

    /// The URL schemes the installed ffmpeg reads: its input protocols, and RTSP (a demuxer).
    static func readableSchemes(program: String) -> Set<String> {
        var schemes: Set<String> = ["rtsp", "rtsps"]
        guard let text = FFmpegSource.run(program: program, arguments: ["-hide_banner", "-protocols"]) else { return schemes }
        var inInput = false
        for line in text.split(separator: "\n") {
            let word = line.drop(while: { $0 == " " })
            if word.hasPrefix("Input:") { inInput = true; continue }
            if word.hasPrefix("Output:") { break }
            if inInput, !word.isEmpty { schemes.insert(String(word)) }
        }
        return schemes
    }
}
