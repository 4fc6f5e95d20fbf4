import ArgumentParser
import Lookout
import LookoutService

/// Options that run programs on events; `--hook-timeout` and `--hook-jobs` are the key table's alone.
struct HookOptions: ParsableArguments {
    @Option(name: .customLong("on-code"), parsing: .upToNextOption, help: .key("on-code", readsOwnForm: true))
    var onCode: [String] = []

    @Option(name: .customLong("on-presence"), parsing: .upToNextOption, help: .key("on-presence", readsOwnForm: true))
    var onPresence: [String] = []

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        if !onCode.isEmpty { settings.onCode = onCode }
        if !onPresence.isEmpty { settings.onPresence = onPresence }
        return settings
    }
}
