/// A code's data read as GS1 Application Identifiers and their values (the `gs1` field of lines):
/// from a GS1 element string (a symbol whose AIM identifier says GS1: `]C1`, `]e0`, `]Q3`, `]d2`,
/// `]z1`...), from the GTIN an EAN/UPC symbol is (`]E0`, `]E4`), or from a GS1 Digital Link URI in a
/// QR code or DataMatrix.
public struct GS1Data: Equatable, Sendable {
    /// One Application Identifier and its value, as the element string holds them.
    public struct Element: Equatable, Sendable {
        /// The AI's digits (`01`, `10`, `3103`...).
        public let ai: String
        /// The value, ASCII (GS1's character sets; a Digital Link's percent-encoding undone).
        public let value: String

        public init(ai: String, value: String) {
            self.ai = ai
            self.value = value
        }
    }

    /// In the order the data holds them (for a Digital Link: the path's, then the query's).
    public let elements: [Element]
    /// True when the data was a GS1 Digital Link URI, false for an element string or a GTIN.
    public let isDigitalLink: Bool

    public init(elements: [Element], isDigitalLink: Bool) {
        self.elements = elements
        self.isDigitalLink = isDigitalLink
    }

    /// The human-readable interpretation: each AI in parentheses before its value,
    /// `(01)09506000134352(10)ABC123(17)271231`.
    public var humanReadable: String {
        elements.map { "(\($0.ai))\($0.value)" }.joined()
    }

    /// The value of `ai`'s first element, or nil.
    public subscript(ai: String) -> String? { elements.first { $0.ai == ai }?.value }

    /// What a code's data holds as GS1, or nil when it is not GS1 data or does not parse as valid
    /// GS1 data (an unknown AI, a wrong length, a bad check digit or date): never a partial or
    /// guessed reading.
    /// - Parameters:
    ///   - payload: the code's bytes, without any symbology identifier; FNC1 separators as GS (0x1D).
    ///   - symbologyIdentifier: the symbol's AIM identifier (`SymbologyIdentifier`).
    static func read(payload: [UInt8], type: MetadataObjectType, symbologyIdentifier: String) -> GS1Data? {
        if SymbologyIdentifier.elementStrings.contains(symbologyIdentifier) {
            return elementString(payload[...])
        }
        if SymbologyIdentifier.gtins.contains(symbologyIdentifier) {
            return gtin(payload, type: type).map { GS1Data(elements: [Element(ai: "01", value: $0)], isDigitalLink: false) }
        }
        if type == .qr || type == .dataMatrix {
            return digitalLink(payload)
        }
        return nil
    }

    /// Parses an element string: AI, value, AI, value... A value of predefined length (AIs starting
    /// 00-02, 11-20, 31-36, 41) ends at that length; any other ends at a GS (FNC1) or the data's end.
    static func elementString(_ data: ArraySlice<UInt8>) -> GS1Data? {
        let separator: UInt8 = 0x1D
        var rest = data
        var elements: [Element] = []
        while !rest.isEmpty {
            guard let (ai, spec) = GS1ApplicationIdentifier.find(at: rest) else { return nil }
            rest = rest.dropFirst(ai.utf8.count)
            let value: ArraySlice<UInt8>
            if spec.predefinedLength {
                value = rest.prefix(spec.maximumLength)
                rest = rest.dropFirst(value.count)
            } else {
                value = rest.prefix { $0 != separator }
                rest = rest.dropFirst(value.count)
            }
            // A separator ends a variable field; one after a predefined length is tolerated.
            if rest.first == separator { rest = rest.dropFirst() }
            guard spec.accepts(value), add(ai, value, to: &elements) else { return nil }
        }
        return elements.isEmpty ? nil : GS1Data(elements: elements, isDigitalLink: false)
    }

    /// Appends the element unless the AI came already with another value (invalid GS1 data).
    /// A repeated AI with the same value is kept once.
    static func add(_ ai: String, _ value: ArraySlice<UInt8>, to elements: inout [Element]) -> Bool {
        let element = Element(ai: ai, value: String(decoding: value, as: UTF8.self))
        if let earlier = elements.first(where: { $0.ai == ai }) { return earlier.value == element.value }
        elements.append(element)
        return true
    }

    /// The GTIN-14 an EAN/UPC symbol's digits are, check digit verified: EAN-13 and ISBN-13 with a
    /// leading 0, UPC-A with two, EAN-8 with six, UPC-E expanded to its UPC-A, ISBN-10 as the
    /// 978 EAN-13 it was printed as.
    static func gtin(_ payload: [UInt8], type: MetadataObjectType) -> String? {
        var digits = payload
        if type == .isbn10 {
            // ZBar gives the ISBN-10 (last character a check digit or X); the symbol held 978 + 9 digits + EAN check.
            guard digits.count == 10 else { return nil }
            digits = Array("978".utf8) + digits.prefix(9)
            guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            digits.append(checkDigit(digits))
        } else if type == .upcE {
            guard let expanded = expandUPCE(digits) else { return nil }
            digits = expanded
        }
        guard [8, 12, 13].contains(digits.count) else { return nil }
        let gtin = Array(repeating: UInt8(ascii: "0"), count: 14 - digits.count) + digits
        guard GS1ApplicationIdentifier.hasValidCheckDigit(gtin) else { return nil }
        return String(decoding: gtin, as: UTF8.self)
    }

    /// The check digit for `digits` (which do not hold one).
    private static func checkDigit(_ digits: [UInt8]) -> UInt8 {
        var sum = 0
        for (position, digit) in digits.reversed().enumerated() { sum += Int(digit - 0x30) * (position % 2 == 0 ? 3 : 1) }
        return UInt8((10 - sum % 10) % 10) + 0x30
    }

    /// UPC-E's 8 digits (number system 0 or 1, six digits, check digit) as the 12 of its UPC-A.
    static func expandUPCE(_ digits: [UInt8]) -> [UInt8]? {
        guard digits.count == 8, digits.allSatisfy({ (0x30...0x39).contains($0) }),
              digits[0] == UInt8(ascii: "0") || digits[0] == UInt8(ascii: "1") else { return nil }
        let d = Array(digits[1...6]), zeros = { (count: Int) in Array(repeating: UInt8(ascii: "0"), count: count) }
        let body: [UInt8]
        switch d[5] {
        case UInt8(ascii: "0")...UInt8(ascii: "2"): body = [d[0], d[1], d[5]] + zeros(4) + [d[2], d[3], d[4]]
        case UInt8(ascii: "3"): body = [d[0], d[1], d[2]] + zeros(5) + [d[3], d[4]]
        case UInt8(ascii: "4"): body = [d[0], d[1], d[2], d[3]] + zeros(5) + [d[4]]
        default: body = [d[0], d[1], d[2], d[3], d[4]] + zeros(4) + [d[5]]
        }
        return [digits[0]] + body + [digits[7]]
    }

    /// The ISBN-10 of a book's EAN-13 (978, 9 digits, its check digit), as `gtin` reads it back:
    /// the 9 digits and their own check digit (0 to 9, or X for 10), weighted 10 down to 2 modulo 11.
    static func isbn10(ofEAN13 digits: [UInt8]) -> [UInt8]? {
        guard digits.count == 13, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let body = Array(digits[3..<12])
        let sum = body.enumerated().reduce(0) { $0 + Int($1.element - 0x30) * (10 - $1.offset) }
        let check = (11 - sum % 11) % 11
        return body + [check == 10 ? UInt8(ascii: "X") : UInt8(0x30 + check)]
    }

    /// UPC-A's 12 digits as the 8 of the UPC-E symbol that holds them (`expandUPCE` undone), or
    /// nil when no UPC-E symbol holds them: each of UPC-E's four shapes is tried and kept when it
    /// expands to the same 12 digits.
    static func compressUPCE(_ upcA: [UInt8]) -> [UInt8]? {
        guard upcA.count == 12 else { return nil }
        let u = upcA, three = UInt8(ascii: "3"), four = UInt8(ascii: "4")
        let shapes: [[UInt8]] = [[u[1], u[2], u[8], u[9], u[10], u[3]], [u[1], u[2], u[3], u[9], u[10], three],
                                 [u[1], u[2], u[3], u[4], u[10], four], [u[1], u[2], u[3], u[4], u[5], u[10]]]
        return shapes.lazy.map { [u[0]] + $0 + [u[11]] }.first { expandUPCE($0) == u }
    }
}
