/// The configuration keys as `lookout run` options, read and described from the key table alone:
/// `--KEY VALUE` or `--KEY=VALUE`, a true-or-false key as `--KEY` and `--no-KEY`, a list key once
/// per item. Each value goes through its key's own reader, as the file's does (`--density 3` and
/// `density: 3` are one check), so a key declared in the table is an option with its help, with
/// no line of the command line's own.
package enum ConfigurationOptions {
    /// Why the arguments were refused, in the words the command line uses for its other options.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case unknownOption(String)
        case unexpectedArgument(String)
        case missingValue(option: String)
        case invalidValue(String, option: String, reason: String)

        package var description: String {
            switch self {
            case .unknownOption(let option): return "Unknown option '\(option)'"
            case .unexpectedArgument(let argument): return "Unexpected argument '\(argument)'"
            case .missingValue(let option): return "Missing value for '\(option)'"
            case .invalidValue(let value, let option, let reason): return "The value '\(value)' is invalid for '\(option)': \(reason)"
            }
        }
    }

    /// The key `--option` gives: a key a command line may set (not a camera's own, such as
    /// `mqtt-name`), by its option's name.
    package static func key(forOption option: String) -> ConfigurationKey? {
        ConfigurationKey.all.first { $0.option == option && $0.scope != .cameraOnly }
    }

    /// Every option a key gives, without its dashes, and the key: `buffers`, and for a
    /// true-or-false key `realtime` and `no-realtime`. The help, the man page's description and
    /// the completion scripts all list these.
    package static var options: [(name: String, key: ConfigurationKey)] {
        ConfigurationKey.all.filter { $0.scope != .cameraOnly }.flatMap { key in
            (key.isFlag ? [key.option, "no-" + key.option] : [key.option]).map { (name: $0, key: key) }
        }
    }

    /// Every option a key gives, as a shell completes them: `--buffers`, `--realtime`, `--no-realtime`.
    package static var optionNames: [String] { options.map { "--" + $0.name } }

    /// The settings `arguments` give, every value read by its key. A key given twice keeps its
    /// last value, but a list key keeps each, in order.
    package static func settings(from arguments: [String]) throws(Refusal) -> ConfigurationSettings {
        var given: [(key: ConfigurationKey, texts: [String], value: ConfigurationValue)] = []
        func give(_ key: ConfigurationKey, _ text: String, _ value: ConfigurationValue) {
            if let index = given.firstIndex(where: { $0.key.name == key.name }) {
                if key.takesList {
                    given[index].texts.append(text)
                    given[index].value = .list(given[index].texts.map { .string($0) })
                } else {
                    given[index] = (key, [text], value)
                }
            } else {
                given.append((key, [text], value))
            }
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw argument.hasPrefix("-") && argument.count > 1 ? .unknownOption(argument) : .unexpectedArgument(argument)
            }
            var name = Substring(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            if let key = key(forOption: String(name)) {
                if key.isFlag {
                    give(key, inline ?? "true", inline.map { .string($0) } ?? .bool(true))
                } else {
                    // The next argument whatever it looks like, so `--offset -5` is a value.
                    guard let text = inline ?? remaining.popFirst() else { throw .missingValue(option: label(of: key)) }
                    give(key, text, .string(text))
                }
            } else if name.hasPrefix("no-"), inline == nil, let key = key(forOption: String(name.dropFirst(3))), key.isFlag {
                give(key, "false", .bool(false))
            } else {
                throw .unknownOption("--" + name)
            }
        }
        var settings = ConfigurationSettings()
        for (key, texts, value) in given {
            try read(value, given: texts, by: key, into: &settings)
        }
        return settings
    }

    /// Reads the value an option gave (`texts`, as written) by its key, into `settings`: an option
    /// a command declares itself (`scan` shares them; `--zone NAME=POLYGON` has a form of its own)
    /// refuses what the file refuses, in the words the other options use.
    package static func read(_ value: ConfigurationValue, given texts: [String], by key: ConfigurationKey,
                             into settings: inout ConfigurationSettings) throws(Refusal) {
        if let refusal = key.read(value, into: &settings) {
            // What exactly is wrong (a polygon's point), as the file's check says it, else what is allowed.
            throw .invalidValue(texts.joined(separator: " "), option: label(of: key), reason: refusal.reason ?? refusal.description)
        }
    }

    /// Without a file, options apply to every camera: a section's option given without its lead
    /// (`--pre-roll` without `--record`) would do nothing, and says so: "--pre-roll needs --record.".
    package static func keyWithoutItsSection(in settings: ConfigurationSettings) -> String? {
        for section in ConfigurationSection.allCases {
            guard let lead = section.leadKey.flatMap(ConfigurationKey.named), !lead.isGiven(settings) else { continue }
            if let given = section.keys.first(where: { $0.name != lead.name && $0.isGiven(settings) }) {
                return "--\(given.option) needs --\(lead.option)."
            }
        }
        return nil
    }

    /// The option as the help shows it: `--buffers <n>`, `--exit-on-loss/--no-exit-on-loss`.
    package static func label(of key: ConfigurationKey) -> String {
        key.isFlag ? "--\(key.option)/--no-\(key.option)" : "--\(key.option) <\(key.valueName)>"
    }

    /// What the help says of the key's option: its summary, what it takes (unless the option's
    /// own type lists its values), its default (a flag's as the flag: `--no-face-join`).
    package static func help(of key: ConfigurationKey, statingAllowed: Bool = true) -> String {
        var text = key.summary.hasSuffix(".") ? String(key.summary.dropLast()) : key.summary
        if !key.isFlag, statingAllowed { text += " (\(key.allowed))" }
        text += "."
        if let defaultText = key.defaultText {
            let words = key.isFlag
                ? defaultText.replacing(/\btrue\b/, with: "--\(key.option)").replacing(/\bfalse\b/, with: "--no-\(key.option)")
                : defaultText
            text += " (default: \(words))"
        }
        return text
    }

    /// The key's lines in a help screen `columns` wide, laid out as ArgumentParser lays out its
    /// options: the label, then the help from column 26, wrapped at word boundaries.
    package static func helpLines(of key: ConfigurationKey, columns: Int = 80) -> [String] {
        let indent = 26
        let label = "  " + label(of: key)
        var lines: [String] = []
        var line = label.count < indent ? label.padding(to: indent) : label
        if label.count >= indent {
            lines.append(line)
            line = String(repeating: " ", count: indent)
        }
        var lineHasWords = false
        for word in help(of: key).split(separator: " ") {
            if lineHasWords, line.count + 1 + word.count > columns {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                lineHasWords = false
            }
            line += (lineHasWords ? " " : "") + word
            lineHasWords = true
        }
        lines.append(line)
        return lines
    }
}

private extension String {
    func padding(to length: Int) -> String { self + String(repeating: " ", count: Swift.max(0, length - count)) }
}
