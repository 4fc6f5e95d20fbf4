import ArgumentParser
import Lookout
import LookoutService

/// `lookout config`: check a configuration file, show what it runs with, print its schema.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check a configuration file, show the configuration it gives, print its JSON Schema.",
        discussion: """
            A configuration file is YAML: sections named as the option groups of `lookout run --help` \
            (capture, detection, events, snapshots, recordings, output, mqtt, hooks, http, limits) whose \
            keys are the options' own names, and `cameras:`, a map of camera names to their input and \
            any override of the sections' camera keys. ${VAR} is replaced from the environment \
            (${CREDENTIALS_DIRECTORY}/NAME for a systemd credential). Reference: docs/configuration.md.
            """,
        subcommands: [Check.self, Print.self, Schema.self, Reference.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file whole: every problem as FILE:LINE:COLUMN: key.path: what is wrong; exit 64 if any.")

        @Argument(help: ArgumentHelp("The configuration file.", valueName: "file"))
        var file: String

        func run() throws {
            let cameras = try loadConfiguration(file).cameras.map(\.name)
            print("\(file): ok, \(cameras.count) camera\(cameras.count == 1 ? "" : "s")\(cameras.isEmpty ? "" : ": " + cameras.joined(separator: ", "))")
        }
    }

    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the effective configuration of a file: every key each camera runs with, defaults included, secrets redacted.")

        @Argument(help: ArgumentHelp("The configuration file.", valueName: "file"))
        var file: String

        func run() throws {
            print(ConfigurationWriter.yaml(ConfigurationWriter.effectiveValue(of: try loadConfiguration(file))), terminator: "")
        }
    }

    struct Schema: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the JSON Schema of the configuration file (docs/lookout-config.schema.json), for editors.")

        func run() {
            print(ConfigurationSchema.json, terminator: "")
        }
    }

    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the reference of every key (Markdown, as in docs/configuration.md).")

        func run() {
            print(ConfigurationReference.markdown, terminator: "")
        }
    }
}
