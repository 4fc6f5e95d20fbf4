import ArgumentParser
import Lookout
import LookoutService

/// Options that run programs on events; `--hook-timeout` and `--hook-jobs` are the key table's alone.
struct HookOptions: ParsableArguments {
    @Option(name: .customLong("on-code"), parsing: .upToNextOption, help: ArgumentHelp(
        "Run this program for each code event: argv as given (no shell), the event JSON on its standard input, fields in LOOKOUT_* variables. Arguments cannot start with '-'; wrap such a command in a script.",
        valueName: "cmd [args...]"))
    var onCode: [String] = []

    @Option(name: .customLong("on-presence"), parsing: .upToNextOption, help: ArgumentHelp(
        "Run this program when presence turns on or off (LOOKOUT_STATE=on|off), as --on-code does.",
        valueName: "cmd [args...]"))
    var onPresence: [String] = []

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        if !onCode.isEmpty { settings.onCode = onCode }
        if !onPresence.isEmpty { settings.onPresence = onPresence }
        return settings
    }
}
