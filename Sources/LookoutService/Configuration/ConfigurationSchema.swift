/// The JSON Schema of the configuration file (`lookout config schema`, docs/lookout-config.schema.json),
/// made from the keys themselves, so that editors complete and check a file as Lookout does.
public enum ConfigurationSchema {
    public static let identifier = "https://github.com/lookout/lookout/docs/lookout-config.schema.json"

    public static var value: ConfigurationValue {
        func property(_ key: ConfigurationKey) -> ConfigurationValue.Entry {
            var schema: [ConfigurationValue.Entry] = [.init(key: "description", value: .string(key.summary + (key.defaultText.map { " Default: \($0)." } ?? "")))]
            if case .map(let entries) = key.schema { schema += entries }
            return .init(key: key.name, value: .map(schema))
        }
        func object(_ properties: [ConfigurationValue.Entry], required: [String] = [], description: String? = nil) -> ConfigurationValue {
            var entries: [ConfigurationValue.Entry] = [.init(key: "type", value: .string("object"))]
            if let description { entries.append(.init(key: "description", value: .string(description))) }
            entries.append(.init(key: "properties", value: .map(properties)))
            if !required.isEmpty { entries.append(.init(key: "required", value: .list(required.map { .string($0) }))) }
            entries.append(.init(key: "additionalProperties", value: .bool(false)))
            return .map(entries)
        }
        var sections = ConfigurationSection.allCases.map { section in
            ConfigurationValue.Entry(key: section.rawValue, value: object(section.keys.map(property)))
        }
        let input = ConfigurationValue.Entry(key: "input", value: .schema([
            "description": .string("A device (/dev/videoN, /dev/v4l/by-id/...), a file, - for standard input, or a URL (rtsp://, http://, ...)."),
            "type": .string("string"), "minLength": .integer(1)]))
        let camera = object([input] + ConfigurationKey.all.filter(\.isCameraKey).map(property), required: ["input"],
                            description: "A camera: its input and any override of the global settings.")
        sections.append(.init(key: ConfigurationReader.camerasKey, value: .schema([
            "type": .string("object"),
            "description": .string("The cameras by name (1 to 64 letters, digits, _ and -)."),
            "propertyNames": .schema(["pattern": .string("^[A-Za-z0-9_-]{1,64}$")]),
            "additionalProperties": camera])))
        return .schema([
            "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
            "$id": .string(identifier),
            "title": .string("Lookout configuration"),
            "type": .string("object"),
            "properties": .map(sections),
            "additionalProperties": .bool(false),
        ])
    }

    /// The schema as JSON text, two-space indented, keys in order.
    public static var json: String { JSONText.render(value) + "\n" }
}

/// JSON text of a configuration value, keys in their order.
enum JSONText {
    static func render(_ value: ConfigurationValue, indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent + 1), end = String(repeating: "  ", count: indent)
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .number(let number): return ValueRange<Double>.words(number)
        case .string(let text): return string(text)
        case .list(let items):
            if items.allSatisfy({ if case .list = $0 { return false }; if case .map = $0 { return false }; return true }) {
                return "[" + items.map { render($0) }.joined(separator: ", ") + "]"
            }
            return "[\n" + items.map { pad + render($0, indent: indent + 1) }.joined(separator: ",\n") + "\n" + end + "]"
        case .map(let entries):
            if entries.isEmpty { return "{}" }
            return "{\n" + entries.map { pad + string($0.key) + ": " + render($0.value, indent: indent + 1) }.joined(separator: ",\n") + "\n" + end + "}"
        }
    }

    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
