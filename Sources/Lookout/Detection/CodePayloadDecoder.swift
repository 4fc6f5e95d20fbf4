#if canImport(Glibc)
import Glibc
#endif

/// How a code's payload bytes were read as text.
public enum TextEncoding: String, Sendable, Equatable {
    case utf8 = "utf-8"
    case isoLatin1 = "iso-8859-1"
    case shiftJIS = "shift_jis"
}

/// Turns the exact bytes of a code (ZBar in binary mode) into text.
///
/// ZBar's own conversion guesses among Shift-JIS, Latin-1, Big5 and UTF-8 and gets common text
/// wrong ("été" in UTF-8 comes back as Big5 "矇t矇"). The rules here: ZBar has already applied an
/// ECI designator when there was one (the result is UTF-8); otherwise bytes that are valid UTF-8 are
/// UTF-8; bytes made only of ASCII and Kanji-mode Shift-JIS pairs (what a QR Kanji segment yields)
/// are Shift-JIS; anything else is ISO-8859-1, the QR standard's default for byte segments.
public enum CodePayloadDecoder {
    public static func decode(_ payload: [UInt8]) -> (text: String, encoding: TextEncoding) {
        if let text = String(validating: payload, as: UTF8.self) {
            return (text, .utf8)
        }
        if looksLikeKanjiMode(payload), let text = shiftJISToString(payload) {
            return (text, .shiftJIS)
        }
        var text = ""
        text.unicodeScalars.reserveCapacity(payload.count)
        for byte in payload { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return (text, .isoLatin1)
    }

    /// True when every non-ASCII byte is part of a double-byte character in the ranges QR Kanji
    /// mode can encode (0x8140-0x9FFC, 0xE040-0xEBBF), and there is at least one.
    static func looksLikeKanjiMode(_ bytes: [UInt8]) -> Bool {
        var i = 0
        var pairs = 0
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 { i += 1; continue }
            guard i + 1 < bytes.count else { return false }
            let trail = bytes[i + 1]
            let code = Int(lead) << 8 | Int(trail)
            guard (0x8140...0x9FFC).contains(code) || (0xE040...0xEBBF).contains(code),
                  trail >= 0x40, trail != 0x7F, trail <= 0xFC else { return false }
            pairs += 1
            i += 2
        }
        return pairs > 0
    }

    static func shiftJISToString(_ bytes: [UInt8]) -> String? {
        let converter = iconv_open("UTF-8", "SHIFT_JIS")
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 3 + 4)
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                var outLeft = outBuffer.count
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                guard result != -1, inLeft == 0 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let produced else { return nil }
        return String(validating: output[0..<produced].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
