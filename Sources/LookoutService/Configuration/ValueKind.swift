import Lookout

/// What a configuration key takes: how its value is read from the file (or from JSON), written
/// back (`lookout config print`), described in the JSON Schema, and stated in a refusal. The
/// command line reads the same values with the same ranges (`ValueRange`), so an option and its
/// key refuse the same things in the same words.
public struct ValueKind<Value: Sendable & Hashable>: Sendable {
    /// The allowed values in words: "2 to 32", "one of json, text".
    public let allowed: String
    /// The JSON Schema of the value.
    public let schema: ConfigurationValue
    let read: @Sendable (ConfigurationValue) -> Value?
    let write: @Sendable (Value) -> ConfigurationValue
    /// What exactly is wrong with a refused value, when more can be said than the range.
    let explain: @Sendable (ConfigurationValue) -> String?
    /// How the `lookout run` option of the same name reads its argument, for a scalar: the same
    /// parser and bounds as the file (`ConfigurationKey.argumentRange`).
    let argument: ValueRange<Value>?
    /// What the `lookout run` option's help calls its argument (`--buffers <n>`).
    package private(set) var valueName = "value"

    public init(allowed: String, schema: ConfigurationValue, read: @escaping @Sendable (ConfigurationValue) -> Value?,
                write: @escaping @Sendable (Value) -> ConfigurationValue, explain: @escaping @Sendable (ConfigurationValue) -> String? = { _ in nil }) {
        self.init(allowed: allowed, schema: schema, read: read, write: write, explain: explain, argument: nil)
    }

    init(allowed: String, schema: ConfigurationValue, read: @escaping @Sendable (ConfigurationValue) -> Value?,
         write: @escaping @Sendable (Value) -> ConfigurationValue, explain: @escaping @Sendable (ConfigurationValue) -> String? = { _ in nil },
         argument: ValueRange<Value>?) {
        self.allowed = allowed
        self.schema = schema
        self.read = read
        self.write = write
        self.explain = explain
        self.argument = argument
    }

    /// The value, or why not in words ("allowed 2 to 32").
    public func parse(_ value: ConfigurationValue) -> Result<Value, ValueRefusal> {
        read(value).map { .success($0) } ?? .failure(ValueRefusal(range: allowed, reason: explain(value)))
    }

    public func represent(_ value: Value) -> ConfigurationValue { write(value) }

    /// The same kind, its argument called `name` in the help.
    func called(_ name: String) -> ValueKind {
        var kind = self
        kind.valueName = name
        return kind
    }
}

extension ConfigurationValue {
    static func schema(_ pairs: KeyValuePairs<String, ConfigurationValue>) -> ConfigurationValue {
        .map(pairs.map { Entry(key: $0.key, value: $0.value) })
    }

    /// A list's items, or a comma-separated scalar's parts (`types: qr,face` as well as `[qr, face]`).
    var items: [ConfigurationValue]? {
        switch self {
        case .list(let items): return items
        case .string(let text):
            return text.split(separator: ",").map { .string(String($0).trimmingCharacters(in: " ")) }
        default: return nil
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}

extension ValueKind {
    /// A scalar read by `range` (the command line's own parser and bounds).
    static func scalar(_ range: ValueRange<Value>, type: String, write: @escaping @Sendable (Value) -> ConfigurationValue,
                       extra: KeyValuePairs<String, ConfigurationValue> = [:]) -> ValueKind {
        var schema: [ConfigurationValue.Entry] = [.init(key: "type", value: .string(type))]
        schema += extra.map { .init(key: $0.key, value: $0.value) }
        return ValueKind(allowed: range.text, schema: .map(schema), read: { value in
            guard let text = value.scalarText else { return nil }
            return try? range.parse(text)
        }, write: write, argument: range)
    }
}

extension ValueKind where Value == Int {
    package static func integer(_ bounds: ClosedRange<Int>, unit: String = "") -> ValueKind {
        .scalar(.integer(bounds, unit: unit), type: "integer", write: { .integer($0) },
                extra: ["minimum": .integer(bounds.lowerBound), "maximum": .integer(bounds.upperBound)]).called("n")
    }

    static func integer(_ range: ValueRange<Int>) -> ValueKind {
        .scalar(range, type: "integer", write: { .integer($0) }).called("n")
    }
}

extension ValueKind where Value == Double {
    static func number(_ bounds: ClosedRange<Double>, unit: String = "") -> ValueKind {
        .scalar(.number(bounds, unit: unit), type: "number", write: { .number($0) },
                extra: ["minimum": .number(bounds.lowerBound), "maximum": .number(bounds.upperBound)]).called("n")
    }
}

extension ValueKind where Value == Bool {
    static let bool = ValueKind(allowed: "true or false", schema: .schema(["type": .string("boolean")]), read: { value in
        switch value.scalarText?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }, write: { .bool($0) })
}

extension ValueKind where Value == String {
    /// Any text for which `check` is true (a path, a name), at most `maximumBytes` bytes.
    static func text(_ allowed: String, maximumBytes: Int = 4096, pattern: String? = nil,
                     check: @escaping @Sendable (String) -> Bool = { _ in true }) -> ValueKind {
        var schema: [ConfigurationValue.Entry] = [.init(key: "type", value: .string("string")), .init(key: "minLength", value: .integer(1)),
                                                  .init(key: "maxLength", value: .integer(maximumBytes))]
        if let pattern { schema.append(.init(key: "pattern", value: .string(pattern))) }
        return ValueKind(allowed: allowed, schema: .map(schema), read: { value in
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= maximumBytes, !text.contains("\0"), check(text) else {
                return nil
            }
            return text
        }, write: { .string($0) }).called("text")
    }

    /// A path to a file or folder (checked to exist, where it must, when the file is checked).
    static let path = text("a path", maximumBytes: 4096).called("path")

    /// One of `names`, or another name of one (`aliases`), read as its own; the option reads it alike.
    static func choice(_ names: [String], aliases: KeyValuePairs<String, String> = [:]) -> ValueKind {
        .scalar(.choice(names, aliases: aliases), type: "string", write: { .string($0) },
                extra: ["enum": .list((names + aliases.map(\.key)).map { .string($0) })]).called(names.joined(separator: "|"))
    }
}

extension ValueKind where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of an enumeration's raw values.
    static var choice: ValueKind {
        let names = Value.allCases.map(\.rawValue)
        return ValueKind(allowed: "one of " + names.joined(separator: ", "),
                         schema: .schema(["type": .string("string"), "enum": .list(names.map { .string($0) })]),
                         read: { value in value.scalarText.flatMap { Value(rawValue: $0.lowercased()) } },
                         write: { .string($0.rawValue) }).called(names.joined(separator: "|"))
    }
}

extension ValueKind where Value == [String] {
    /// A list of texts each `item` allows (a single one may be written without brackets).
    static func list(of item: ValueKind<String>, allowed: String) -> ValueKind {
        ValueKind(allowed: allowed, schema: .schema(["type": .string("array"), "items": item.schema, "minItems": .integer(1)]),
                  read: { value in
                      let items: [ConfigurationValue]
                      if case .list(let list) = value { items = list } else if case .string = value { items = [value] } else { return nil }
                      let texts = items.compactMap { try? item.parse($0).get() }
                      return texts.count == items.count && !texts.isEmpty ? texts : nil
                  }, write: { .list($0.map { .string($0) }) })
    }
}

extension ValueKind where Value == DurationValue {
    static func duration(_ bounds: ClosedRange<Double>) -> ValueKind {
        .scalar(.duration(bounds), type: "[\"string\", \"number\"]", write: { .string($0.description) })
            .withSchema(.schema(["type": .list([.string("string"), .string("number")]),
                                 "pattern": .string("^-?[0-9.]+(ms|s|m|h)?$")])).called("time")
    }
}

extension ValueKind where Value == AgeValue {
    static func age(_ bounds: ClosedRange<Double>) -> ValueKind {
        .scalar(.age(bounds), type: "string", write: { .string($0.description) })
            .withSchema(.schema(["type": .list([.string("string"), .string("number")]), "pattern": .string("^[0-9.]+(s|m|h|d)?$")])).called("age")
    }
}

extension ValueKind where Value == ByteCountValue {
    static func bytes(_ bounds: ClosedRange<Int64>) -> ValueKind {
        .scalar(.bytes(bounds), type: "string", write: { .string($0.description) })
            .withSchema(.schema(["type": .list([.string("string"), .string("integer")]),
                                 "pattern": .string("^[0-9.]+([KMGTkmgt](i?[Bb])?|[Bb])?$")])).called("size")
    }
}

extension ValueKind where Value == PixelCountValue {
    static func pixels(_ bounds: ClosedRange<Int>) -> ValueKind {
        .scalar(.pixels(bounds), type: "string", write: { .string($0.description) })
            .withSchema(.schema(["type": .list([.string("string"), .string("integer")]), "pattern": .string("^[0-9]+([xX][0-9]+)?$")])).called("n|WxH")
    }
}

extension ValueKind {
    func withSchema(_ schema: ConfigurationValue) -> ValueKind {
        ValueKind(allowed: allowed, schema: schema, read: read, write: write, explain: explain, argument: argument).called(valueName)
    }
}
