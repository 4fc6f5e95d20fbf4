/// The values an option or configuration key takes, checked while the value is parsed: a
/// malformed or out-of-range value is refused naming the range (`text`), e.g. "allowed 2 to 32",
/// the same words on the command line and in `lookout config check`.
package struct ValueRange<Value: Sendable>: Sendable {
    /// The allowed values in words, as the help and refusals state them: "2 to 32".
    package let text: String
    private let read: @Sendable (String) -> Value?
    private let allows: @Sendable (Value) -> Bool

    package init(text: String, read: @escaping @Sendable (String) -> Value?, allows: @escaping @Sendable (Value) -> Bool) {
        self.text = text
        self.read = read
        self.allows = allows
    }

    /// The value `argument` gives, when it is well-formed and in range.
    package func parse(_ argument: String) throws(ValueRefusal) -> Value {
        guard let value = read(argument), allows(value) else { throw ValueRefusal(range: text) }
        return value
    }

    /// Whether `value` (a default, or one made otherwise) is in range.
    package func contains(_ value: Value) -> Bool { allows(value) }
}

/// A value outside its range; the command line and the file check put this after their own words.
public struct ValueRefusal: Error, CustomStringConvertible {
    public let range: String
    /// What exactly is wrong, when more can be said than the range (a polygon's point out of the frame).
    public var reason: String?
    public init(range: String, reason: String? = nil) {
        self.range = range
        self.reason = reason
    }
    public var description: String { "allowed " + range }
}

extension ValueRange where Value == String {
    /// One of `names` (any case), or one of the names `aliases` stand for, read as that name.
    package static func choice(_ names: [String], aliases: KeyValuePairs<String, String> = [:]) -> Self {
        let known = Dictionary(uniqueKeysWithValues: names.map { ($0, $0) } + aliases.map { ($0.key, $0.value) })
        let also = aliases.isEmpty ? "" : " (or " + aliases.map(\.key).joined(separator: ", ") + ")"
        return Self(text: "one of " + names.joined(separator: ", ") + also, read: { known[$0.lowercased()] }, allows: { names.contains($0) })
    }
}

extension ValueRange where Value == Int {
    /// Whole numbers within `bounds`.
    package static func integer(_ bounds: ClosedRange<Int>, unit: String = "") -> Self {
        Self(text: "\(bounds.lowerBound) to \(bounds.upperBound)\(unit)", read: { Int($0) }, allows: bounds.contains)
    }
}

extension ValueRange where Value == Double {
    /// Numbers (decimals allowed) within `bounds`; never NaN or infinite.
    package static func number(_ bounds: ClosedRange<Double>, unit: String = "") -> Self {
        Self(text: "\(words(bounds.lowerBound)) to \(words(bounds.upperBound))\(unit)",
             read: { Double($0) }, allows: { $0.isFinite && bounds.contains($0) })
    }

    /// `1000` rather than `1000.0`.
    package static func words(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

extension ValueRange {
    /// Values `read` gives whose `measure` lies within `bounds`, stated in `words` with `units`.
    fileprivate static func measured(_ bounds: ClosedRange<Double>, words: (Double) -> String, units: String,
                                     read: @escaping @Sendable (String) -> Value?, measure: @escaping @Sendable (Value) -> Double) -> Self {
        Self(text: "\(words(bounds.lowerBound)) to \(words(bounds.upperBound)) (\(units))", read: read, allows: { bounds.contains(measure($0)) })
    }
}

extension ValueRange where Value == DurationValue {
    /// Times within `bounds` seconds.
    package static func duration(_ bounds: ClosedRange<Double>) -> Self {
        measured(bounds, words: DurationValue.words(seconds:), units: "ms, s, m or h; bare numbers are seconds",
                 read: DurationValue.init(argument:), measure: { $0.seconds })
    }
}

extension ValueRange where Value == AgeValue {
    /// Ages within `bounds` seconds.
    package static func age(_ bounds: ClosedRange<Double>) -> Self {
        measured(bounds, words: AgeValue.words(seconds:), units: "s, m, h or d", read: AgeValue.init(argument:), measure: { $0.seconds })
    }
}

extension ValueRange where Value == ByteCountValue {
    /// Byte counts within `bounds`.
    package static func bytes(_ bounds: ClosedRange<Int64>) -> Self {
        Self(text: "\(ByteCountValue(bytes: bounds.lowerBound)) to \(ByteCountValue(bytes: bounds.upperBound)) (K, M, G, T: powers of 1024)",
             read: ByteCountValue.init(argument:), allows: { bounds.contains($0.bytes) })
    }
}

extension ValueRange where Value == PixelCountValue {
    /// Pixel counts within `bounds`, given as a count or WxH.
    package static func pixels(_ bounds: ClosedRange<Int>) -> Self {
        func words(_ count: Int) -> String {
            let side = Int(Double(count).squareRoot())
            return side * side == count ? "\(count) (\(side)x\(side))" : "\(count)"
        }
        return Self(text: "\(words(bounds.lowerBound)) to \(words(bounds.upperBound)) pixels",
                    read: PixelCountValue.init(argument:), allows: { bounds.contains($0.pixels) })
    }
}
