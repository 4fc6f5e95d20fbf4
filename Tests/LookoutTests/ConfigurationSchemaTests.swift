import Foundation
import Lookout
import LookoutService
import Testing

/// The keys, the schema in the repository, the reference in docs/ and the options of
/// `lookout run` are one and the same list.
@Suite struct ConfigurationSchemaTests {
    @Test func theSchemaInTheRepositoryIsTheCodes() throws {
        let committed = try String(contentsOfFile: Fixtures.packageRoot + "/docs/lookout-config.schema.json", encoding: .utf8)
        #expect(committed == ConfigurationSchema.json, "run `lookout config schema > docs/lookout-config.schema.json`")
        // And it is JSON.
        let object = try JSONSerialization.jsonObject(with: Data(committed.utf8)) as? [String: Any]
        let sections = try #require(object?["properties"] as? [String: Any])
        #expect(Set(sections.keys) == Set(ConfigurationSection.allCases.map(\.rawValue) + ["cameras"]))
    }

    @Test func theReferenceInDocsIsTheCodes() throws {
        let document = try String(contentsOfFile: Fixtures.packageRoot + "/docs/configuration.md", encoding: .utf8)
        let begin = "<!-- reference: begin (lookout config reference) -->\n", end = "<!-- reference: end -->"
        let start = try #require(document.range(of: begin))
        let stop = try #require(document.range(of: end))
        #expect(String(document[start.upperBound..<stop.lowerBound]) == ConfigurationReference.markdown,
                "run `lookout config reference` and paste it between the markers in docs/configuration.md")
    }

    @Test func everyOptionOfRunHasAKey() throws {
        let help = try runLookout(["run", "--help"])
        // The options are the lines that start with one (`  -q, --quiet`, `  --snapshot-boxes/--no-snapshot-boxes`).
        let options = Set(help.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  (?:-[a-zA-Z], )?--([a-z][a-z0-9-]+)/).map { String($0.output.1) }
        })
        #expect(options.count > 60)
        // --config names the file itself; --input is a camera's `input`; no-X is the inversion of X.
        let withoutKeys: Set<String> = ["config", "input", "help", "version"]
        // Each key's option is named in the table (--mask and --zone, once per polygon, give `masks` and `zones`).
        let keyOptions = Set(ConfigurationKey.all.map(\.option))
        let missing = options.subtracting(withoutKeys).filter { !keyOptions.contains($0) && !($0.hasPrefix("no-") && keyOptions.contains(String($0.dropFirst(3)))) }
        #expect(missing.isEmpty, "options without a configuration key: \(missing.sorted())")
        // And no key without an option, but those a camera's section alone holds: a key the
        // command line does not declare is described from the table (`--buffers`, `--hook-jobs`).
        let keysWithoutOptions = ConfigurationKey.all.filter { $0.scope != .cameraOnly && !options.contains($0.option) }.map(\.name)
        #expect(keysWithoutOptions.isEmpty, "keys without an option: \(keysWithoutOptions.sorted())")
    }

    /// ArgumentParser's description of the commands, which the man page is made from, names
    /// every key's option under `run` too, with the help the screen gives it.
    @Test func theDumpOfRunNamesEveryKeysOption() throws {
        for arguments in [["--experimental-dump-help"], ["run", "--experimental-dump-help"]] {
            let dump = try #require(try JSONSerialization.jsonObject(with: Data(runLookout(arguments).utf8)) as? [String: Any])
            let root = try #require(dump["command"] as? [String: Any])
            let run = root["commandName"] as? String == "run" ? root
                : try #require((root["subcommands"] as? [[String: Any]])?.first { $0["commandName"] as? String == "run" })
            let arguments = run["arguments"] as? [[String: Any]] ?? []
            let names = Set(arguments.flatMap { ($0["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } })
            let missing = ConfigurationOptions.optionNames.map { String($0.dropFirst(2)) }.filter { !names.contains($0) }
            #expect(missing.isEmpty, "\(arguments): not in the dump: \(missing)")
            let buffers = arguments.first { ($0["names"] as? [[String: Any]])?.first?["name"] as? String == "buffers" }
            #expect(buffers?["abstract"] as? String == "Driver buffers to stream with (2 to 32). (default: 4)")
            #expect(buffers?["sectionTitle"] as? String == "Camera")
        }
    }

    /// The zsh and fish completion scripts offer `run` every key's option, as bash does: a choice
    /// with its values, a flag with its `no-` form, a list's option as repeatable; each once.
    @Test func theCompletionScriptsOfferEveryKeysOption() throws {
        let zsh = try runLookout(["--generate-completion-script", "zsh"])
        let run = try #require(zsh.components(separatedBy: "_lookout_run() {").dropFirst().first?.components(separatedBy: "\n}").first)
        let fish = try runLookout(["--generate-completion-script", "fish"])
        let fishRun = fish.split(separator: "\n").filter { $0.contains("\"lookout run\"") }
        for option in ConfigurationOptions.optionNames {
            let name = String(option.dropFirst(2))
            let specifications = run.split(separator: "\n").filter { $0.contains("--" + name + "[") || $0.contains("--" + name + ",") }
            #expect(specifications.count == 1, "zsh: \(option) is offered \(specifications.count) times")
            #expect(fishRun.filter { $0.contains("-l '\(name)'") }.count == 1, "fish: \(option)")
        }
        #expect(run.contains("'--events[") && run.contains(":frames|changes:(frames changes)'"))
        #expect(run.contains("'--no-realtime[") && run.contains("'*--snapshot-on["))
        #expect(run.contains("(2 to 32). (default\\: 4)]:"), "the help's colon is quoted for _arguments")
        #expect(fishRun.contains { $0.contains("-l 'events'") && $0.hasSuffix("-rfka 'frames changes'") })
        let parsed = try #require(fish.split(separator: "\n").first { $0.contains("__lookout_parse_subcommand") && $0.contains("'buffers='") })
        #expect(parsed.contains("'no-realtime'") && parsed.contains("'snapshot-on=+'"))
        // A repeatable option is offered again once given; another is not.
        #expect(fishRun.contains { $0.contains("\"lookout run\"' -l 'snapshot-on'") })
        #expect(fishRun.contains { $0.contains("\"lookout run\" buffers' -l 'buffers'") })
    }

    /// A key declared in the table alone is read from the file and its cameras, checked with its
    /// range, printed by `config print`, described in the schema and the reference, and is a
    /// `lookout run` option read and described from the table: none of them names a key.
    @Test func aKeyDeclaredInTheTableAloneIsFoundEverywhere() throws {
        let key = ConfigurationKey("test-only-level", .detection, .camera, \.verifyNeighbors, .integer(3...9),
                                   defaultText: "unset", "A key only this test declares.")
        let file = "detection:\n  test-only-level: 5\ncameras:\n  door:\n    input: /dev/video0\n    test-only-level: 7\n"
        let outOfRange = "detection:\n  test-only-level: 12\n"
        // Without the key in the table, the file's reader does not know it.
        #expect(throws: ConfigurationProblems.self) { try ConfigurationFile.parse(file, file: "t.yml", checksFiles: false) }

        try ConfigurationKey.$table.withValue(ConfigurationKey.Table(ConfigurationKey.builtIn + [key])) {
            let configuration = try ConfigurationFile.parse(file, file: "t.yml", checksFiles: false)
            #expect(configuration.settings.verifyNeighbors == 5)
            #expect(configuration.cameras.first?.settings.verifyNeighbors == 7)
            #expect(configuration.settings.givenKeys.contains("test-only-level"))

            var refusal = ""
            do { _ = try ConfigurationFile.parse(outOfRange, file: "t.yml", checksFiles: false) } catch let error as ConfigurationProblems {
                refusal = error.problems.map(\.description).joined(separator: "\n")
            }
            #expect(refusal.contains("detection.test-only-level"), "\(refusal)")
            #expect(refusal.contains(key.allowed), "\(refusal)")

            let printed = ConfigurationWriter.yaml(ConfigurationWriter.value(of: configuration))
            #expect(printed.contains("test-only-level: 5"), "\(printed)")
            #expect(printed.contains("test-only-level: 7"), "\(printed)")

            let schema = try #require(try JSONSerialization.jsonObject(with: Data(ConfigurationSchema.json.utf8)) as? [String: Any])
            let sections = try #require(schema["properties"] as? [String: Any])
            let detection = try #require((sections["detection"] as? [String: Any])?["properties"] as? [String: Any])
            let property = try #require(detection["test-only-level"] as? [String: Any])
            #expect(property["minimum"] as? Int == 3)
            #expect(property["maximum"] as? Int == 9)
            #expect((property["description"] as? String)?.hasPrefix("A key only this test declares.") == true)

            let reference = ConfigurationReference.markdown
            let row = reference.split(separator: "\n").first { $0.contains("`test-only-level`") }
            #expect(row?.contains("A key only this test declares.") == true, "\(reference)")
            #expect(row?.contains(key.allowed) == true)

            // The option: read by the key's own reader, refused in its words, in the help.
            #expect(try ConfigurationOptions.settings(from: ["--test-only-level", "4"]).verifyNeighbors == 4)
            #expect(try ConfigurationOptions.settings(from: ["--test-only-level=9"]).verifyNeighbors == 9)
            #expect(throws: ConfigurationOptions.Refusal.invalidValue("12", option: "--test-only-level <n>", reason: "allowed " + key.allowed)) {
                try ConfigurationOptions.settings(from: ["--test-only-level", "12"])
            }
            #expect(ConfigurationOptions.helpLines(of: key) == ["  --test-only-level <n>   A key only this test declares (3 to 9). (default:",
                                                               "                          unset)"])
        }
        // Without the key in the table, it is no option.
        #expect(throws: ConfigurationOptions.Refusal.unknownOption("--test-only-level")) {
            try ConfigurationOptions.settings(from: ["--test-only-level", "4"])
        }
    }

    /// The options that read a number, a duration or a size take their key's range
    /// (`ConfigurationKey.argumentRange`), and their help says it in the same words.
    @Test func everyOptionReadingAScalarStatesItsKeysRange() throws {
        let help = try runLookout(["run", "--help"])
        var helpOf: [String: String] = [:], current: String?
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if let option = line.firstMatch(of: /^  (?:-[a-zA-Z], )?--([a-z][a-z0-9-]+)/)?.output.1 {
                current = String(option)
                helpOf[String(option)] = String(line)
            } else if let name = current, line.hasPrefix("    ") {
                helpOf[name, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
            }
        }
        let scalarKeys = ConfigurationKey.all.filter { $0.argumentAllowed != nil }
        #expect(scalarKeys.count >= 30)
        for key in scalarKeys {
            let text = try #require(helpOf[key.name], "no option --\(key.name)")
            #expect(text.contains(key.argumentAllowed!), "--\(key.name) does not state '\(key.argumentAllowed!)': \(text)")
            #expect(key.argumentAllowed == key.allowed)
        }
    }

    @Test func theCodableFormIsTheFilesKeys() throws {
        // A file giving every key (an example value each) encodes to the same keys.
        var text = ""
        for section in ConfigurationSection.allCases {
            text += "\(section.rawValue):\n"
            for key in section.keys { text += "  \(key.name): \(Self.example(key.name))\n" }
        }
        let configuration = try ConfigurationFile.parse(text, file: "every-key.yml", checksFiles: false)
        #expect(configuration.settings.givenKeys.count == ConfigurationKey.all.filter { $0.scope != .cameraOnly }.count)
        let json = try JSONEncoder().encode(configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: [String: Any]])
        for section in ConfigurationSection.allCases {
            #expect(Set(object[section.rawValue]?.keys.map { $0 } ?? []) == Set(section.keys.map(\.name)), "\(section)")
        }
        #expect(try JSONDecoder().decode(LookoutConfiguration.self, from: json) == configuration)
    }

    /// A value each key takes.
    private static func example(_ key: String) -> String {
        switch key {
        case "size": "640x480"
        case "pixel-format": "MJPG"
        case "control": "{brightness: 10}"
        case "types": "[qr, face]"
        case "rect-of-interest": "[0, 0, 0.5, 0.5]"
        case "charset": "utf-8"
        case "code-resolution": "half"
        case "events": "changes"
        case "record-on": "codes"
        case "snapshot-on": "[code, presence]"
        case "format": "text"
        case "log-level": "debug"
        case "mqtt": "mqtts://broker.local/lookout"
        case "on-code", "on-presence": "[/bin/true]"
        case "http": "127.0.0.1:0"
        case "http-allowed-host": "[lookout.local]"
        case "http-allowed-origin": "[https://kiosk.lan]"
        case "max-pixels": "1920x1080"
        case "masks": "[[[0, 0], [0.2, 0], [0.2, 0.2]]]"
        case "zones": "{desk: [[0.5, 0.5], [1, 0.5], [1, 1]]}"
        case "record-keep", "record-memory", "outbox-max-size": "64M"
        case "record-max-age": "7d"
        case "dedupe", "presence-window", "presence-off", "face-leave", "pre-roll", "post-roll", "segment", "hook-timeout": "2s"
        case "hwaccel": "vaapi"
        case "keyboard-layout": "de"
        case "keyboard-suffix": "tab"
        case "keyboard-delay": "10ms"
        case "keyboard-prefix", "keyboard-gs", "keyboard-substitute": "\"#\""
        case "face-width": "640"
        case "scale-factor": "1.2"
        case "mqtt-client-id", "mqtt-user", "ha-prefix": "name"
        case "face-model", "face-verifier", "face-profile", "snapshots", "record", "mqtt-password-file", "mqtt-ca", "mqtt-cert", "mqtt-key", "http-token-file", "state-dir": "/tmp/x"
        default:
            ConfigurationKey.named(key)?.allowed == "true or false" ? "true" : "2"
        }
    }

    private func runLookout(_ arguments: [String]) throws -> String {
        let result = try lookout(arguments)
        #expect(result.status == 0)
        return String(decoding: result.stdout, as: UTF8.self)
    }
}
