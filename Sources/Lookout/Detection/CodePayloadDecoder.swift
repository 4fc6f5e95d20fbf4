#if canImport(Glibc)
import Glibc
#endif

/// How a code's payload bytes were read as text.
public enum TextEncoding: String, Sendable, Equatable, CaseIterable {
    case utf8 = "utf-8"
    case isoLatin1 = "iso-8859-1"
    case shiftJIS = "shift_jis"
}

/// Turns the exact bytes of a code (ZBar in binary mode) into text.
///
/// ZBar's own conversion guesses among Shift-JIS, Latin-1, Big5 and UTF-8 and gets common text
/// wrong ("été" in UTF-8 comes back as Big5 "矇t矇"). The rules here: ZBar has already applied an
/// ECI designator when there was one (the result is UTF-8); otherwise bytes that are valid UTF-8
/// are UTF-8. Bytes that are not are Shift-JIS or ISO-8859-1 (the QR standard's default for byte
/// segments), told apart as ZXing does, the decoder whose guesses QR encoders in Japan were
/// checked against: Shift-JIS when every byte fits it and there is a run of three double-byte or
/// three half-width katakana characters (or exactly two katakana together and no other), or when a
/// byte rules Latin-1 out (0x80-0x9F are C1 controls there) or a tenth of the bytes would be rare
/// Latin-1 symbols; otherwise ISO-8859-1.
///
/// Shift-JIS is read as QR encoders write it (Windows code page 932): 0x5C is `\` and 0x7E is `~`,
/// as in ASCII, where the strict JIS X 0201 Roman reading (`¥`, `‾`) turns a path or a URL's
/// backslash and tilde into other characters; half-width katakana are 0xA1-0xDF.
public enum CodePayloadDecoder {
    /// - Parameters:
    ///   - payload: the symbol's bytes, as the reader gave them.
    ///   - forced: read the bytes in this encoding when they are valid in it (for users
    ///   whose codes are known to use one); bytes that are not fall back to the guess.
    public static func decode(_ payload: [UInt8], forced: TextEncoding? = nil) -> (text: String, encoding: TextEncoding) {
        if let forced, let text = text(payload, in: forced) { return (text, forced) }
        if let text = String(validating: payload, as: UTF8.self) {
            return (text, .utf8)
        }
        if guessesShiftJIS(payload), let text = shiftJISToString(payload) {
            return (text, .shiftJIS)
        }
        return (latin1(payload), .isoLatin1)
    }

    /// The bytes read in `encoding`, or nil when they are not valid in it.
    static func text(_ payload: [UInt8], in encoding: TextEncoding) -> String? {
        switch encoding {
        case .utf8: String(validating: payload, as: UTF8.self)
        case .isoLatin1: latin1(payload)
        case .shiftJIS: ShiftJISShape(payload).isValid ? shiftJISToString(payload) : nil
        }
    }

    private static func latin1(_ payload: [UInt8]) -> String {
        var text = ""
        text.unicodeScalars.reserveCapacity(payload.count)
        for byte in payload { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return text
    }

    /// ZXing's choice between Shift-JIS and ISO-8859-1 for bytes that are not UTF-8.
    static func guessesShiftJIS(_ bytes: [UInt8]) -> Bool {
        let shape = ShiftJISShape(bytes)
        guard shape.isValid else { return false }
        if shape.longestKatakanaRun >= 3 || shape.longestDoubleByteRun >= 3 { return true }
        var latin1Possible = true
        var rareLatin1 = 0
        for byte in bytes {
            if (0x80...0x9F).contains(byte) { latin1Possible = false; break }
            // Symbols and capitals with no lower-case use: rare in Latin-1 text.
            if byte >= 0xA0, byte < 0xC0 || byte == 0xD7 || byte == 0xF7 { rareLatin1 += 1 }
        }
        guard latin1Possible else { return true }
        return (shape.longestKatakanaRun == 2 && shape.katakana == 2) || rareLatin1 * 10 >= bytes.count
    }

    /// What a left-to-right Shift-JIS reading of the bytes finds.
    struct ShiftJISShape {
        var isValid = true
        var katakana = 0
        var doubleByte = 0
        var longestKatakanaRun = 0
        var longestDoubleByteRun = 0

        init(_ bytes: [UInt8]) {
            var i = 0, katakanaRun = 0, doubleRun = 0
            while i < bytes.count {
                let byte = bytes[i]
                switch byte {
                case 0x00...0x7F:
                    katakanaRun = 0; doubleRun = 0
                    i += 1
                case 0xA1...0xDF:
                    katakana += 1; katakanaRun += 1; doubleRun = 0
                    longestKatakanaRun = max(longestKatakanaRun, katakanaRun)
                    i += 1
                case 0x81...0x9F, 0xE0...0xEF:
                    guard i + 1 < bytes.count, (0x40...0xFC).contains(bytes[i + 1]), bytes[i + 1] != 0x7F else {
                        isValid = false; return
                    }
                    doubleByte += 1; doubleRun += 1; katakanaRun = 0
                    longestDoubleByteRun = max(longestDoubleByteRun, doubleRun)
                    i += 2
                default: // 0x80, 0xA0, 0xF0-0xFF
                    isValid = false; return
                }
            }
        }
    }

    /// Code page 932, the Shift-JIS QR encoders write (ASCII in 0x00-0x7F). Nil for a pair with
    /// no character.
    static func shiftJISToString(_ bytes: [UInt8]) -> String? {
        let converter = iconv_open("UTF-8", "CP932")
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
