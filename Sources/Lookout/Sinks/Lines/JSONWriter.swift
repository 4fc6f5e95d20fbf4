/// Builds one JSON object as UTF-8 bytes, appending to a reusable buffer.
///
/// Hand-written rather than JSONEncoder: field order is fixed (readable, diff-able lines), nothing
/// is allocated per value, and escaping is explicit. Swift strings are always valid Unicode, so
/// escaping quotes, backslashes and control characters is enough for every line to be valid JSON,
/// whatever bytes a code held; C1 controls, U+2028 and U+2029 are escaped too, for consumers that
/// split lines on them (Python's splitlines, JavaScript).
package struct JSONWriter {
    package private(set) var bytes: [UInt8]
    private var needsComma = [false]

    package init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = [false]
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    /// Writes `"name":`; the next value written belongs to it.
    package mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    package mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    package mutating func integer<T: BinaryInteger>(_ value: T) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A finite number rounded to `fractionDigits` decimals; non-finite values become null.
    package mutating func number(_ value: Double, fractionDigits: Int = 6) {
        separate()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(.towardZero), abs(rounded) < 1e15 {
            bytes.append(contentsOf: String(Int64(rounded)).utf8)
        } else {
            bytes.append(contentsOf: rounded.description.utf8)
        }
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes a complete JSON value made by another writer (a line, without its newline) as is.
    package mutating func value(encoded: [UInt8]) {
        separate()
        bytes.append(contentsOf: encoded.last == 0x0A ? encoded.dropLast() : encoded[...])
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
        }
        needsComma[needsComma.count - 1] = true
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                appendUnicodeEscape(UInt16(byte))
            case 0xC2:
                // C1 controls (U+0080-U+009F, C2 80-9F in UTF-8): U+0085 ends a line for Python's
                // splitlines and other Unicode-aware readers of JSON lines.
                guard let second = utf8.next() else { bytes.append(byte); break }
                if (0x80...0x9F).contains(second) {
                    appendUnicodeEscape(UInt16(second))
                } else {
                    bytes.append(contentsOf: [byte, second])
                }
            case 0xE2:
                // U+2028 and U+2029 are E2 80 A8 / E2 80 A9 in UTF-8.
                guard let second = utf8.next() else { bytes.append(byte); break }
                guard let third = utf8.next() else { bytes.append(contentsOf: [byte, second]); break }
                if second == 0x80, third == 0xA8 || third == 0xA9 {
                    appendUnicodeEscape(third == 0xA8 ? 0x2028 : 0x2029)
                } else {
                    bytes.append(contentsOf: [byte, second, third])
                }
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        bytes.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }
}
