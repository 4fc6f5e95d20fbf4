import ArgumentParser
import Foundation
import LookoutService

/// `--experimental-dump-help`, ArgumentParser's description of the commands that its man page
/// generator (the Debian package's lookout.run(1)) and other tools read, with every configuration
/// key no `@Option` declares added to `run` as an option, as `RunHelp` adds it to the screen.
enum RunHelpDump {
    /// The dump in `message` with `run`'s keys added; nil when `message` is no dump.
    static func spliced(_ message: String) -> String? {
        guard message.hasPrefix("{"),
              var root = (try? JSONSerialization.jsonObject(with: Data(message.utf8))) as? [String: Any],
              root["serializationVersion"] != nil, var command = root["command"] as? [String: Any] else { return nil }
        if command["commandName"] as? String == "run" {
            addKeys(to: &command)
        } else if var subcommands = command["subcommands"] as? [[String: Any]],
                  let run = subcommands.firstIndex(where: { $0["commandName"] as? String == "run" }) {
            addKeys(to: &subcommands[run])
            command["subcommands"] = subcommands
        }
        root["command"] = command
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `run`'s arguments and, after them, each key's option they do not name (a true-or-false
    /// key as a flag and its `no-` form, as ArgumentParser lists an inversion).
    private static func addKeys(to run: inout [String: Any]) {
        var arguments = run["arguments"] as? [[String: Any]] ?? []
        let declared = Set(arguments.flatMap { argument in
            (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        })
        // A declared flag without its inversion (`--stats`) still has it from the table.
        for (name, key) in ConfigurationOptions.options where !declared.contains(name) {
            let long: [String: Any] = ["kind": "long", "name": name]
            arguments.append([
                "kind": key.isFlag ? "flag" : "option", "names": [long], "preferredName": long,
                "valueName": key.isFlag ? name : key.valueName, "abstract": ConfigurationOptions.help(of: key),
                "isOptional": true, "isRepeating": key.takesList, "parsingStrategy": "default",
                "sectionTitle": key.section.title, "shouldDisplay": true,
            ])
        }
        run["arguments"] = arguments
    }
}
