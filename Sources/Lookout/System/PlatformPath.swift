#if canImport(Glibc)
import Glibc
#endif

/// Paths are bytes on Linux; Swift strings are Unicode. A path that is not valid UTF-8 (a file
/// named in Latin-1, a damaged name) travels through Lookout's `String` APIs with each byte that
/// is not part of valid UTF-8 stored as the private-use scalar U+10FF00 + byte (U+10FF80 to
/// U+10FFFF), as the command line decodes its arguments; every system call gets the original
/// bytes back. (Python's `surrogateescape` does the same with scalars Swift cannot hold.)
extension String {
    private static let escapedByteBase: UInt32 = 0x10FF00

    /// Decodes a path's bytes, keeping the bytes that are not valid UTF-8 (see above).
    package init<Bytes: Collection>(platformPath bytes: Bytes) where Bytes.Element == UInt8 {
        if let text = String(validating: bytes, as: UTF8.self) {
            self = text // nearly every path
            return
        }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var remaining = Array(bytes)[...]
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                remaining = remaining.dropFirst(encoded.count)
            case .error(let length):
                for byte in remaining.prefix(length) {
                    scalars.append(Unicode.Scalar(Self.escapedByteBase + UInt32(byte))!)
                }
                remaining = remaining.dropFirst(length)
            case .emptyInput:
                self = String(scalars)
                return
            }
        }
    }

    /// The bytes this path stands for: UTF-8, with escaped bytes restored.
    package var platformPathBytes: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar.value >= Self.escapedByteBase + 0x80, scalar.value <= Self.escapedByteBase + 0xFF {
                bytes.append(UInt8(scalar.value - Self.escapedByteBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with the path as the NUL-terminated bytes system calls take.
    package func withPlatformPath<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        var bytes = platformPathBytes.map { CChar(bitPattern: $0) }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The text for a one-line message: control characters and DEL as `\n`, `\t` or `\xNN`,
    /// bytes that are not UTF-8 as `\xNN`, so a name with a newline cannot split a diagnostic.
    package var escapedForDisplay: String {
        guard unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0.value >= Self.escapedByteBase + 0x80 }) else {
            return self
        }
        var text = ""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x09: text += "\\t"
            case 0..<0x20, 0x7F: text += "\\x" + Self.hex(UInt8(scalar.value))
            case (Self.escapedByteBase + 0x80)...(Self.escapedByteBase + 0xFF):
                text += "\\x" + Self.hex(UInt8(scalar.value - Self.escapedByteBase))
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// The path with escaped bytes shown as U+FFFD, for JSON lines.
    package var repairedPath: String {
        String(String.UnicodeScalarView(unicodeScalars.map {
            $0.value >= Self.escapedByteBase + 0x80 && $0.value <= Self.escapedByteBase + 0xFF ? "\u{FFFD}" : $0
        }))
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
