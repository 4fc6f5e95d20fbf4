import Foundation
import LookoutService

/// `--generate-completion-script zsh` and `fish` with every configuration key's option added to
/// `run`, as `RunHelp` adds them to the screen and `RunHelpDump` to the man page. ArgumentParser
/// writes the options `@Option` declares; bash offers the others already, from the list of the
/// argument that takes them (`ConfigurationOptions.optionNames`).
enum RunCompletionScript {
    /// `script` with `run`'s keys added; nil when it is no zsh or fish script of `lookout`.
    static func spliced(_ script: String) -> String? {
        if script.hasPrefix("#compdef lookout") { return zsh(script) }
        if script.contains("complete -c 'lookout'") { return fish(script) }
        return nil
    }

    /// An option to add: the key's option, or the `no-` form of a flag.
    struct Option {
        let name: String
        let key: ConfigurationKey

        /// The values a choice takes (`frames`, `changes`), empty for the rest.
        var choices: [String] {
            guard case .list(let values)? = key.schema["enum"] else { return [] }
            return values.compactMap(\.scalarText)
        }
    }

    /// Each key's option, and each flag's `no-` form, that `declared` does not name.
    static func options(besides declared: Set<String>) -> [Option] {
        ConfigurationOptions.options.filter { !declared.contains($0.name) }.map { Option(name: $0.name, key: $0.key) }
    }

    // MARK: zsh

    private static func zsh(_ script: String) -> String? {
        var lines = script.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "_lookout_run() {"),
              let end = lines[start...].firstIndex(where: { $0.hasPrefix("}") }),
              let version = lines[start..<end].firstIndex(where: { $0.contains("'--version[") }) else { return nil }
        let declared = Set(lines[start..<end].compactMap(zshOptionName))
        let indent = String(lines[version].prefix { $0 == " " })
        lines.insert(contentsOf: options(besides: declared).map { indent + zshSpecification($0) }, at: version)
        return lines.joined(separator: "\n")
    }

    /// The long option a line of `arg_specs` describes (`'*--control[...` gives `control`).
    private static func zshOptionName(_ line: String) -> String? {
        guard let dashes = line.range(of: "--") else { return nil }
        let name = line[dashes.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
        return name.isEmpty ? nil : String(name)
    }

    /// `'--NAME[help]'`, with `:value:` for an option and `*` before a repeatable one.
    static func zshSpecification(_ option: Option) -> String {
        var spec = (option.key.takesList ? "*" : "") + "--" + option.name
            + "[" + zshEscaped(ConfigurationOptions.help(of: option.key)) + "]"
        if !option.key.isFlag {
            let values = option.choices
            let choices = values.map { zshEscaped($0, also: " ()") }.joined(separator: " ")
            spec += ":" + zshEscaped(option.key.valueName) + ":" + (values.isEmpty ? "" : "(" + choices + ")")
        }
        return "'" + spec.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Text inside an `_arguments` specification: its separators quoted.
    private static func zshEscaped(_ text: String, also: String = "") -> String {
        var escaped = ""
        for character in text {
            if "\\:[]".contains(character) || also.contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    // MARK: fish

    private static func fish(_ script: String) -> String? {
        var lines = script.components(separatedBy: "\n")
        guard let runCase = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "case 'run'" }),
              lines.indices.contains(runCase + 1), lines[runCase + 1].contains("__lookout_parse_subcommand"),
              let version = lines[runCase + 1].range(of: " 'version'") else { return nil }
        let parsed = lines[runCase + 1]
        let declared = Set(parsed.split(separator: "'").map { word in
            String(word.split(separator: "/").last ?? word).replacingOccurrences(of: "=+", with: "").replacingOccurrences(of: "=", with: "")
        })
        let added = options(besides: declared)
        let words = added.map { " '" + $0.name + ($0.key.isFlag ? "" : $0.key.takesList ? "=+" : "=") + "'" }.joined()
        lines[runCase + 1] = String(parsed[..<version.lowerBound]) + words + String(parsed[version.lowerBound...])
        let condition = "__lookout_should_offer_completions_for_flags_or_options \"lookout run\""
        guard let last = lines.lastIndex(where: { $0.hasPrefix("complete -c 'lookout' -n '" + condition) }) else { return nil }
        lines.insert(contentsOf: added.map(fishCompletion), at: last + 1)
        return lines.joined(separator: "\n")
    }

    /// `complete -c 'lookout' -n '... "lookout run" NAME' -l 'NAME' -d 'help'`, taking a value
    /// (`-rfka`, the choices if any) unless a flag. A repeatable option's condition names none:
    /// it is offered again after it was given, as ArgumentParser's own are (`--control`).
    static func fishCompletion(_ option: Option) -> String {
        let condition = "__lookout_should_offer_completions_for_flags_or_options \"lookout run\""
            + (option.key.takesList ? "" : " " + option.name)
        var line = "complete -c 'lookout' -n " + fishQuoted(condition) + " -l " + fishQuoted(option.name)
            + " -d " + fishQuoted(ConfigurationOptions.help(of: option.key))
        if !option.key.isFlag { line += " -rfka " + fishQuoted(option.choices.joined(separator: " ")) }
        return line
    }

    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
