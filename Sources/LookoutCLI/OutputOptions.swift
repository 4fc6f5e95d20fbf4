import ArgumentParser
import Logging
import Lookout
import LookoutService

extension LineFormat: ExpressibleByArgument {}

struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: json (one object per line) or text (zbarcam's TYPE:value). (default: \(ConfigurationKey.defaultText(of: "format")))")
    var format: LineFormat?

    @Flag(name: .long, help: "Write the end-of-run summary as a JSON line (kind \"stats\") on standard output instead of a sentence on standard error.")
    var stats = false

    @Flag(name: .shortAndLong, help: "No summary on standard error.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "With an error, also write what the library (OpenCV, libjpeg, libpng) said about it.")
    var verbose = false

    @Option(name: .long, help: ArgumentHelp("The least severe diagnostics written to standard error: \(OutputOptions.levels). (default: \(ConfigurationKey.defaultText(of: "log-level")))",
                                            valueName: "level"), transform: { text in
        guard let level = Logger.Level(rawValue: text.lowercased()) else { throw ValidationError("allowed \(OutputOptions.levels)") }
        return level
    })
    var logLevel: Logger.Level?

    /// swift-log's levels, least severe first: "trace, debug, ..., error or critical".
    private static var levels: String {
        let names = Logger.Level.allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.format = format
        if stats { settings.stats = true }
        if quiet { settings.quiet = true }
        if verbose { settings.verbose = true }
        settings.logLevel = logLevel
        return settings
    }
}
