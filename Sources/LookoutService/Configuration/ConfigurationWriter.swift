import Lookout

/// A configuration as the file's values: what `lookout config print` shows and what
/// `LookoutConfiguration` encodes to.
public enum ConfigurationWriter {
    /// The configuration in the file's shape: sections in order, then the cameras.
    public static func value(of configuration: LookoutConfiguration, redactingSecrets: Bool = false) -> ConfigurationValue {
        var entries: [ConfigurationValue.Entry] = []
        for section in ConfigurationSection.allCases {
            let keys = section.keys.compactMap { key in
                key.value(in: configuration.settings).map { ConfigurationValue.Entry(key: key.name, value: redactingSecrets ? key.shown($0) : $0) }
            }
            if !keys.isEmpty { entries.append(.init(key: section.rawValue, value: .map(keys))) }
        }
        if !configuration.cameras.isEmpty {
            entries.append(.init(key: ConfigurationReader.camerasKey, value: .map(configuration.cameras.map { camera in
                .init(key: camera.name, value: cameraValue(camera.input, camera.settings, redactingSecrets: redactingSecrets))
            })))
        }
        return .map(entries)
    }

    /// The effective configuration: every camera with every key it runs with (its own, the
    /// globals', the defaults), and the global sections with their defaults filled in.
    public static func effectiveValue(of configuration: LookoutConfiguration, overrides: ConfigurationSettings = ConfigurationSettings()) -> ConfigurationValue {
        var effective = configuration
        effective.settings = configuration.settings.overlaid(by: overrides).withDefaults
        effective.cameras = configuration.cameras.map { camera in
            var camera = camera
            camera.settings = DetectionSetup.filledVideoDefaults(configuration.effectiveSettings(of: camera, overrides: overrides), input: camera.input)
            return camera
        }
        // Camera sections hold the camera keys only: the global ones are shown once, above.
        var value = Self.value(of: effective, redactingSecrets: true)
        if case .map(var entries) = value, let index = entries.firstIndex(where: { $0.key == ConfigurationReader.camerasKey }),
           case .map(let cameras) = entries[index].value {
            entries[index].value = .map(cameras.map { camera in
                guard case .map(let keys) = camera.value else { return camera }
                var filtered = camera
                filtered.value = .map(keys.filter { $0.key == "input" || ConfigurationKey.named($0.key)?.isCameraKey == true })
                return filtered
            })
            value = .map(entries)
        }
        return value
    }

    private static func cameraValue(_ input: String, _ settings: ConfigurationSettings, redactingSecrets: Bool) -> ConfigurationValue {
        var entries = [ConfigurationValue.Entry(key: "input", value: .string(redactingSecrets ? FFmpegInput.redacted(input) : input))]
        for key in ConfigurationKey.all {
            if let value = key.value(in: settings) {
                entries.append(.init(key: key.name, value: redactingSecrets ? key.shown(value) : value))
            }
        }
        return .map(entries)
    }

    /// `value` as YAML text, block style, in the file's key order.
    public static func yaml(_ value: ConfigurationValue, indent: Int = 0) -> String {
        let pad = String(repeating: " ", count: indent)
        switch value {
        case .map(let entries):
            if entries.isEmpty { return "{}\n" }
            return entries.map { entry in
                switch entry.value {
                case .map(let inner) where !inner.isEmpty: return "\(pad)\(entry.key):\n" + yaml(entry.value, indent: indent + 2)
                default: return "\(pad)\(entry.key): \(scalar(entry.value))\n"
                }
            }.joined()
        default:
            return pad + scalar(value) + "\n"
        }
    }

    /// A scalar, list or small map on one line (YAML's flow style), quoted where YAML would
    /// read it otherwise.
    static func scalar(_ value: ConfigurationValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .number(let number): return ValueRange<Double>.words(number)
        case .string(let text): return quoted(text)
        case .list(let items): return "[" + items.map(scalar).joined(separator: ", ") + "]"
        case .map(let entries): return "{" + entries.map { "\(quoted($0.key)): \(scalar($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "/._-@+=".contains($0) }
            && !["true", "false", "yes", "no", "on", "off", "null", "~"].contains(text.lowercased()) && !text.hasPrefix("-")
        if plain { return text }
        // A JSON string is a YAML double-quoted scalar.
        return JSONText.string(text)
    }
}
