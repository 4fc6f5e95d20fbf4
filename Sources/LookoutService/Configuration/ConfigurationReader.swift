import Lookout

/// Turns a configuration's values (from a YAML file or decoded JSON) into a `LookoutConfiguration`,
/// checking every key and value on the way: unknown keys (with "did you mean"), keys in the wrong
/// place, values of the wrong type or out of range, camera names. All problems are collected, not
/// just the first.
enum ConfigurationReader {
    static let camerasKey = "cameras"

    /// The configuration, or every problem with it; `positions` receives where each key path was
    /// written (for the checks that come after reading). A refusal quotes a value with `secrets`
    /// hidden, and a secret key's value redacted (`ConfigurationKey.shown(_:)`).
    static func read(_ root: ConfigurationValue, file: String, positions: inout [String: FilePosition],
                     secrets: SecretRedaction = SecretRedaction()) -> (LookoutConfiguration, [ConfigurationProblem]) {
        var problems: [ConfigurationProblem] = []
        func problem(_ position: FilePosition?, _ path: String, _ message: String) {
            problems.append(ConfigurationProblem(file: file, position: position, keyPath: path, message: message))
        }
        var configuration = LookoutConfiguration()
        let entries: [ConfigurationValue.Entry]
        switch root {
        case .map(let map): entries = map
        case .null: entries = []
        default:
            problem(FilePosition(line: 1, column: 1), "", "the file must hold a map of sections (capture:, detection:, ..., cameras:), not \(root.kindWords)")
            return (configuration, problems)
        }
        let sectionNames = ConfigurationSection.allCases.map(\.rawValue) + [camerasKey]
        for entry in entries {
            positions[entry.key] = entry.position
            if entry.key == camerasKey {
                configuration.cameras = readCameras(entry, positions: &positions, secrets: secrets, problem: problem)
                continue
            }
            guard let section = ConfigurationSection(rawValue: entry.key) else {
                if let key = ConfigurationKey.named(entry.key) {
                    problem(entry.position, entry.key, key.scope == .cameraOnly ? "belongs in a camera's section (cameras: NAME: \(key.name): ...)"
                            : "belongs in the \(key.section.rawValue) section (\(key.section.rawValue): \(key.name): ...)")
                } else {
                    problem(entry.position, entry.key, unknown("section", entry.key, among: sectionNames))
                }
                continue
            }
            guard case .map(let keys) = entry.value else {
                if case .null = entry.value { continue }
                problem(entry.valuePosition ?? entry.position, entry.key, "a section is a map of keys, not \(entry.value.kindWords)")
                continue
            }
            for item in keys {
                let path = "\(section.rawValue).\(item.key)"
                positions[path] = item.position
                guard let key = ConfigurationKey.named(item.key), key.section == section, key.scope != .cameraOnly else {
                    if let key = ConfigurationKey.named(item.key) {
                        problem(item.position, path, key.scope == .cameraOnly ? "belongs in a camera's section (cameras: NAME: \(key.name): ...)"
                                : "belongs in the \(key.section.rawValue) section, not \(section.rawValue)")
                    } else {
                        problem(item.position, path, unknown("key", item.key, among: section.keys.map(\.name)))
                    }
                    continue
                }
                if let refusal = key.read(item.value, into: &configuration.settings) {
                    problem(item.valuePosition ?? item.position, path, refusalWords(item.value, refusal, key: key, secrets: secrets))
                }
            }
        }
        return (configuration, problems)
    }

    static func read(_ root: ConfigurationValue, file: String) -> Result<LookoutConfiguration, ConfigurationProblems> {
        var positions: [String: FilePosition] = [:]
        let (configuration, problems) = read(root, file: file, positions: &positions)
        return problems.isEmpty ? .success(configuration) : .failure(ConfigurationProblems(problems))
    }

    private static func readCameras(_ entry: ConfigurationValue.Entry, positions: inout [String: FilePosition], secrets: SecretRedaction,
                                    problem: (FilePosition?, String, String) -> Void) -> [CameraConfiguration] {
        guard case .map(let cameras) = entry.value else {
            if case .null = entry.value { return [] }
            problem(entry.valuePosition ?? entry.position, camerasKey, "cameras is a map of camera names to their sections (cameras: door: input: /dev/video0), not \(entry.value.kindWords)")
            return []
        }
        var result: [CameraConfiguration] = []
        var seen: [String: FilePosition?] = [:]
        let cameraKeys = ["input"] + ConfigurationKey.all.filter(\.isCameraKey).map(\.name)
        for camera in cameras {
            let path = "\(camerasKey).\(camera.key)"
            positions[path] = camera.position
            if !CameraName.isValid(camera.key) {
                problem(camera.position, path, "a camera name is 1 to \(CameraName.maximumLength) letters, digits, _ and -")
            }
            if let first = seen[camera.key] {
                problem(camera.position, path, "a second camera named '\(camera.key)'" + (first.map { " (the first is at line \($0.line))" } ?? ""))
                continue
            }
            seen[camera.key] = camera.position
            guard case .map(let keys) = camera.value else {
                problem(camera.valuePosition ?? camera.position, path, "a camera is a map with at least input: (input: /dev/video0), not \(camera.value.kindWords)")
                continue
            }
            var configuration = CameraConfiguration(name: camera.key, input: "")
            var hasInput = false
            for item in keys {
                let keyPath = "\(path).\(item.key)"
                positions[keyPath] = item.position
                if item.key == "input" {
                    guard case .string(let input) = item.value, !input.isEmpty, !input.contains("\0") else {
                        problem(item.valuePosition ?? item.position, keyPath, "\(describe(item.value, secrets: secrets)) is not an input (allowed: a device such as /dev/video0, a file, - for standard input, or a URL)")
                        continue
                    }
                    configuration.input = input
                    hasInput = true
                    continue
                }
                guard let key = ConfigurationKey.named(item.key), key.isCameraKey else {
                    if let key = ConfigurationKey.named(item.key) {
                        problem(item.position, keyPath, "is a global setting: write it in the \(key.section.rawValue) section, for every camera")
                    } else if let section = ConfigurationSection(rawValue: item.key) {
                        problem(item.position, keyPath, "a camera's keys are written directly in its section, without a \(section.rawValue): level")
                    } else {
                        problem(item.position, keyPath, unknown("key", item.key, among: cameraKeys))
                    }
                    continue
                }
                if let refusal = key.read(item.value, into: &configuration.settings) {
                    problem(item.valuePosition ?? item.position, keyPath, refusalWords(item.value, refusal, key: key, secrets: secrets))
                }
            }
            if !hasInput, !keys.contains(where: { $0.key == "input" }) {
                problem(camera.position, path, "has no input: (a device such as /dev/video0, a file, - for standard input, or a URL)")
            }
            result.append(configuration)
        }
        return result
    }

    static func unknown(_ what: String, _ name: String, among candidates: [String]) -> String {
        if let suggestion = Suggestion.closest(to: name, among: candidates) {
            return "unknown \(what); did you mean '\(suggestion)'?"
        }
        return "unknown \(what) (allowed: \(candidates.joined(separator: ", ")))"
    }

    static func refusalWords(_ value: ConfigurationValue, _ refusal: ValueRefusal, key: ConfigurationKey? = nil,
                             secrets: SecretRedaction = SecretRedaction()) -> String {
        if var reason = refusal.reason {
            // A secret key's words quote its value redacted (MQTTError does); should they quote it
            // as given, it is redacted here.
            if let key, key.isSecret, let text = value.scalarText, !text.isEmpty, let shown = key.shown(value).scalarText {
                reason = reason.replacing(text, with: shown)
            }
            return secrets.apply(reason)
        }
        // In a list, name the item that is wrong.
        if case .list(let items) = value, let key, items.count > 1 {
            var scratch = ConfigurationSettings()
            if let bad = items.first(where: { key.read(.list([$0]), into: &scratch) != nil }) {
                return "\(describe(key.shown(bad), secrets: secrets)) in the list is not allowed (allowed: \(refusal.range))"
            }
        }
        return "\(describe(key?.shown(value) ?? value, secrets: secrets)) is not allowed (allowed: \(refusal.range))"
    }

    /// A value as a refusal quotes it: `'abc'`, `a list`; `secrets` hidden before it is shortened,
    /// so that no part of one shows.
    static func describe(_ value: ConfigurationValue, secrets: SecretRedaction = SecretRedaction()) -> String {
        if let text = value.scalarText.map(secrets.apply) {
            let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
            return "'\(shown.escapedForDisplay)'"
        }
        return value.kindWords.prefix(1).uppercased() + value.kindWords.dropFirst()
    }
}
