import Lookout

/// One key of the configuration file: the name of the `lookout run` option it stands for, the
/// section it belongs to, whether a camera may override it, what it takes and its default. The
/// list of keys (`all`) is the one description of the file: reading and checking it, its JSON
/// Schema, `lookout config print`, and the reference in docs/configuration.md all come from it.
public struct ConfigurationKey: Sendable {
    /// Where a key may be written.
    public enum Scope: Sendable {
        /// In its global section only (the MQTT broker, the web server).
        case global
        /// In its global section, as every camera's default, and in a camera's section.
        case camera
        /// In a camera's section only (masks, zones, the MQTT name).
        case cameraOnly
    }

    public let name: String
    public let section: ConfigurationSection
    public let scope: Scope
    public let summary: String
    /// The default in words ("4", "1280x720 or the nearest offered"), nil when unset means off.
    public let defaultText: String?
    /// The allowed values in words.
    public let allowed: String
    public let schema: ConfigurationValue
    /// `lookout config print` shows `***` instead of the value (or a URL's password).
    public let isSecret: Bool
    /// The allowed values in words of a scalar the `lookout run` option reads with the key's own
    /// range (`argumentRange`); nil for the rest.
    package let argumentAllowed: String?
    /// The `lookout run` option that gives the key: its name, but `--mask` and `--zone`, given
    /// once per polygon, for `masks` and `zones`.
    package let option: String
    /// What the option's help calls its argument (`--buffers <n>`).
    package let valueName: String
    /// The key takes true or false: its option is a flag, `--KEY` and `--no-KEY`.
    package let isFlag: Bool
    /// The key holds a list: its option may be given once per item.
    package let takesList: Bool

    /// The key's `ValueKind`, for `argumentRange`.
    private let kind: any Sendable
    let read: @Sendable (ConfigurationValue, inout ConfigurationSettings) -> ValueRefusal?
    let write: @Sendable (ConfigurationSettings) -> ConfigurationValue?
    let overlay: @Sendable (inout ConfigurationSettings, ConfigurationSettings) -> Void
    let fillDefault: @Sendable (inout ConfigurationSettings) -> Void
    let isGiven: @Sendable (ConfigurationSettings) -> Bool

    package init<Value>(_ name: String, _ section: ConfigurationSection, _ scope: Scope, _ path: WritableKeyPath<ConfigurationSettings, Value?> & Sendable,
                _ kind: ValueKind<Value>, default defaultValue: Value? = nil, defaultText: String? = nil, secret: Bool = false,
                option: String? = nil, valueName: String? = nil, _ summary: String) {
        self.name = name
        self.option = option ?? name
        self.valueName = valueName ?? kind.valueName
        isFlag = Value.self == Bool.self
        switch kind.schema["type"] {
        case .string("array"): takesList = true
        case .list(let types): takesList = types.contains(.string("array"))
        default: takesList = false
        }
        self.section = section
        self.scope = scope
        self.summary = summary
        self.defaultText = defaultText ?? defaultValue.flatMap { kind.represent($0).scalarText ?? Self.flow(kind.represent($0)) }
        allowed = kind.allowed
        schema = kind.schema
        isSecret = secret
        self.kind = kind
        argumentAllowed = kind.argument?.text
        read = { value, settings in
            switch kind.parse(value) {
            case .success(let parsed):
                settings[keyPath: path] = parsed
                return nil
            case .failure(let refusal):
                return refusal
            }
        }
        write = { settings in settings[keyPath: path].map(kind.represent) }
        overlay = { settings, other in if let value = other[keyPath: path] { settings[keyPath: path] = value } }
        fillDefault = { settings in if settings[keyPath: path] == nil, let defaultValue { settings[keyPath: path] = defaultValue } }
        isGiven = { settings in settings[keyPath: path] != nil }
    }

    /// Reads `value` into `settings`; the refusal when the value is not one the key takes.
    public func read(_ value: ConfigurationValue, into settings: inout ConfigurationSettings) -> ValueRefusal? {
        read(value, &settings)
    }

    /// The key's value in `settings`, nil when not given.
    public func value(in settings: ConfigurationSettings) -> ConfigurationValue? { write(settings) }

    /// True when a camera's section may hold the key.
    public var isCameraKey: Bool { scope != .global }

    /// The value as every message shows it: a secret key's redacted (`redacted(_:)`), any other's as it is.
    public func shown(_ value: ConfigurationValue) -> ConfigurationValue { isSecret ? Self.redacted(value) : value }

    /// A secret as shown (`lookout config print`, refusals): an address keeps all but its password
    /// (`MQTTBrokerList.redacted(_:)`: whatever follows the user info's `:`, parsed or not), anything
    /// else is `***`.
    static func redacted(_ value: ConfigurationValue) -> ConfigurationValue {
        switch value {
        case .string(let text): return .string(text.contains("://") ? MQTTBrokerList.redacted(text) : "***")
        case .list(let items): return .list(items.map(redacted)) // several brokers' addresses
        default: return .string("***")
        }
    }

    /// True when the key named `name` holds a secret: a key marked secret (`isSecret`), or a
    /// camera's `input` (a URL's password). A `${VAR}` in its value is never shown expanded.
    static func holdsSecret(_ name: String) -> Bool { name == "input" || named(name)?.isSecret == true }

    /// A list or map on one line, as YAML's flow style writes it.
    static func flow(_ value: ConfigurationValue) -> String {
        switch value {
        case .list(let items): return "[" + items.map(flow).joined(separator: ", ") + "]"
        case .map(let entries): return "{" + entries.map { "\($0.key): \(flow($0.value))" }.joined(separator: ", ") + "}"
        case .null: return "null"
        default: return value.scalarText ?? ""
        }
    }

    /// The range the `lookout run` option named as key `name` reads its argument with: the key's
    /// own, so an option and its key take and refuse the same values in the same words. Stops the
    /// program when no such key reads a scalar of this type (a mistake every test run finds).
    package static func argumentRange<Value: Sendable & Hashable>(_ name: String, _ type: Value.Type = Value.self) -> ValueRange<Value> {
        guard let range = (named(name)?.kind as? ValueKind<Value>)?.argument else {
            preconditionFailure("no configuration key '\(name)' reads one \(Value.self)")
        }
        return range
    }

    /// The default of key `name` in words, as the help of its `lookout run` option states it: the
    /// key's own, so the two never differ. Stops the program for a key with no default (a mistake
    /// every test run finds).
    package static func defaultText(of name: String) -> String {
        guard let text = named(name)?.defaultText else { preconditionFailure("configuration key '\(name)' has no default") }
        return text
    }

    /// The key named `name`.
    public static func named(_ name: String) -> ConfigurationKey? { table.byName[name] }

    /// The keys in force and their index by name.
    package struct Table: Sendable {
        let keys: [ConfigurationKey]
        let byName: [String: ConfigurationKey]

        package init(_ keys: [ConfigurationKey]) {
            self.keys = keys
            byName = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })
        }
    }

    /// The table everything reads the keys from (the file's reader and checker, `config print`,
    /// the schema, the reference): `builtIn`. A test binds one more key here to find it
    /// everywhere a key is described (`ConfigurationSchemaTests`).
    @TaskLocal package static var table = Table(builtIn)
}

/// The sections of the file's top level, in the order `lookout config print` writes them: the
/// `lookout run --help` groups. Keys of the first six may also be written in a camera's section.
public enum ConfigurationSection: String, Sendable, CaseIterable {
    case capture, detection, events, snapshots, recordings, keyboard, output, mqtt, hooks, http, limits

    /// The section's keys, in order.
    public var keys: [ConfigurationKey] { ConfigurationKey.all.filter { $0.section == self && $0.scope != .cameraOnly } }

    /// The title of the section's group of options in `lookout run --help`.
    package var title: String {
        switch self {
        case .capture: return "Camera"
        case .keyboard: return "Keyboard output"
        case .output: return "Output"
        case .mqtt: return "MQTT"
        case .http: return "Web view and API"
        default: return rawValue.prefix(1).uppercased() + rawValue.dropFirst()
        }
    }

    /// The key that turns a camera's section on (`record`): its other keys do nothing without it.
    /// A file may set them for every camera and the lead in some; options apply to all cameras.
    package var leadKey: String? {
        switch self {
        case .snapshots: return "snapshots"
        case .recordings: return "record"
        case .keyboard: return "keyboard"
        default: return nil
        }
    }
}
