/// A V4L2 pixel format code, as four ASCII characters ("MJPG", "YUYV").
public struct FourCC: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            .trimmingTrailingSpaces()
    }

    /// The layout Lookout reads this format as, if it reads it at all.
    public var pixelFormat: PixelFormat? {
        switch description {
        case "MJPG", "JPEG": return .mjpeg
        case "YUYV": return .yuyv
        case "UYVY": return .uyvy
        case "GREY": return .gray
        case "NV12": return .nv12
        case "NV21": return .nv21
        case "YU12": return .yuv420
        default: return nil
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }

    /// A NUL-terminated C char array imported as a tuple (driver, card and bus names).
    init<T>(fixedCString tuple: T) {
        self = withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
