import ArgumentParser
import Lookout
import LookoutService

/// Options that run programs on events.
struct HookOptions: ParsableArguments {
    @Option(name: .customLong("on-code"), parsing: .upToNextOption, help: ArgumentHelp(
        "Run this program for each code event: argv as given (no shell), the event JSON on its standard input, fields in LOOKOUT_* variables. Arguments cannot start with '-'; wrap such a command in a script.",
        valueName: "cmd [args...]"))
    var onCode: [String] = []

    @Option(name: .customLong("on-presence"), parsing: .upToNextOption, help: ArgumentHelp(
        "Run this program when presence turns on or off (LOOKOUT_STATE=on|off), as --on-code does.",
        valueName: "cmd [args...]"))
    var onPresence: [String] = []

    static let timeoutRange = ConfigurationKey.argumentRange("hook-timeout", DurationValue.self)
    @Option(name: .customLong("hook-timeout"), parsing: .unconditional, help: ArgumentHelp(
        "A hook running longer is stopped (SIGTERM, then SIGKILL; \(HookOptions.timeoutRange.text)). (default: \(ConfigurationKey.defaultText(of: "hook-timeout")))", valueName: "time"),
            transform: { try HookOptions.timeoutRange.parse($0) })
    var timeout: DurationArgument?

    static let jobsRange = ConfigurationKey.argumentRange("hook-jobs", Int.self)
    @Option(name: .customLong("hook-jobs"), parsing: .unconditional, help: ArgumentHelp(
        "Hooks of one kind running at once, at most (\(HookOptions.jobsRange.text)). (default: \(ConfigurationKey.defaultText(of: "hook-jobs")))", valueName: "n"),
            transform: { try HookOptions.jobsRange.parse($0) })
    var jobs: Int?

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        if !onCode.isEmpty { settings.onCode = onCode }
        if !onPresence.isEmpty { settings.onPresence = onPresence }
        settings.hookTimeout = timeout
        settings.hookJobs = jobs
        return settings
    }
}
