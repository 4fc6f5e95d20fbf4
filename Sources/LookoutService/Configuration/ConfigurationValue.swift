/// A value as the configuration file holds it, before it is given its meaning by its key: what
/// YAML and JSON have in common. It carries the file position of every part when it was read
/// from a file, so a refusal can say which line is wrong.
public indirect enum ConfigurationValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    /// A scalar as written: YAML scalars are read as text and given their type by their key.
    case string(String)
    case list([ConfigurationValue])
    /// A mapping, in the file's order.
    case map([Entry])

    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: ConfigurationValue
        /// Where the key and its value are written (nil when not read from a file).
        public var position: FilePosition?
        public var valuePosition: FilePosition?
        public init(key: String, value: ConfigurationValue, position: FilePosition? = nil, valuePosition: FilePosition? = nil) {
            self.key = key
            self.value = value
            self.position = position
            self.valuePosition = valuePosition
        }
    }

    /// The scalar's text ("10", "true", "2s"), nil for a list, map or null.
    public var scalarText: String? {
        switch self {
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value): return ValueRange<Double>.words(value)
        case .string(let text): return text
        case .null, .list, .map: return nil
        }
    }

    /// What the value is, for a refusal: "a list", "a map", "null", "a scalar".
    public var kindWords: String {
        switch self {
        case .null: return "empty (null)"
        case .list: return "a list"
        case .map: return "a map"
        default: return "a single value"
        }
    }

    public subscript(key: String) -> ConfigurationValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }
}

/// A line and column of a file, both counted from 1.
public struct FilePosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public var description: String { "\(line):\(column)" }
}

extension ConfigurationValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var items: [ConfigurationValue] = []
            while !list.isAtEnd { items.append(try list.decode(ConfigurationValue.self)) }
            self = .list(items)
            return
        }
        if let map = try? decoder.container(keyedBy: AnyCodingKey.self) {
            self = .map(try map.allKeys.map { Entry(key: $0.stringValue, value: try map.decode(ConfigurationValue.self, forKey: $0)) }
                .sorted { $0.key < $1.key })
            return
        }
        let scalar = try decoder.singleValueContainer()
        if scalar.decodeNil() { self = .null }
        else if let value = try? scalar.decode(Bool.self) { self = .bool(value) }
        else if let value = try? scalar.decode(Int.self) { self = .integer(value) }
        else if let value = try? scalar.decode(Double.self) { self = .number(value) }
        else { self = .string(try scalar.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .map(let entries):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for entry in entries { try container.encode(entry.value, forKey: AnyCodingKey(entry.key)) }
        }
    }
}

/// A coding key made from any string: configuration keys are the options' own names.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
