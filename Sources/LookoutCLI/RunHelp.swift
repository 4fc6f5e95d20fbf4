import ArgumentParser
import LookoutService

/// `lookout run --help`: ArgumentParser's screen for the options `RunCommand` declares, with every
/// configuration key that has no declared option of its own described from the key table, in its
/// section's group (`ConfigurationOptions`). So a key declared in the table alone is in the help.
enum RunHelp {
    /// The help screen's width: the keys' lines are laid out to the same width as ArgumentParser's.
    static let columns = 80

    /// The options ArgumentParser declares for `run`, as its help names them (`--face-join` for
    /// `--face-join/--no-face-join`).
    static func declaredOptions(in help: String) -> Set<String> {
        Set(help.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  (?:-[a-zA-Z], )?--([a-z][a-z0-9-]+)/).map { String($0.output.1) }
        })
    }

    /// The keys a command line may give that no declared option gives, in the table's order.
    static func undeclaredKeys(in help: String) -> [ConfigurationKey] {
        let declared = declaredOptions(in: help)
        return ConfigurationKey.all.filter { $0.scope != .cameraOnly && !declared.contains($0.option) }
    }

    /// The whole screen.
    static func text() -> String {
        let base = Lookout.helpMessage(for: RunCommand.self, columns: columns)
        var lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for key in undeclaredKeys(in: base) {
            let heading = key.section.title.uppercased() + ":"
            let added = ConfigurationOptions.helpLines(of: key, columns: columns)
            if let start = lines.firstIndex(of: heading) {
                // The end of the group: its first empty line.
                let end = lines[start...].firstIndex(of: "") ?? lines.endIndex
                lines.insert(contentsOf: added, at: end)
            } else {
                // A group with no declared option: in the sections' order, before the next
                // section's group that is there (or the ungrouped options).
                let later = ConfigurationSection.allCases.drop { $0 != key.section }.dropFirst()
                let next = later.lazy.compactMap { lines.firstIndex(of: $0.title.uppercased() + ":") }.first
                lines.insert(contentsOf: [heading] + added + [""], at: next ?? lines.firstIndex(of: "OPTIONS:") ?? lines.endIndex)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// True when `message` is `run`'s help screen, as ArgumentParser would print it.
    static func isRequested(by message: String) -> Bool {
        message == Lookout.helpMessage(for: RunCommand.self)
    }
}
