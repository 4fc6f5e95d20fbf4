import ArgumentParser
import Logging
import Lookout
import LookoutService

extension LineFormat: ExpressibleByArgument {}

struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: .key("format", listsValues: true))
    var format: LineFormat?

    @Flag(name: .long, help: .key("stats"))
    var stats = false

    @Flag(name: .shortAndLong, help: .key("quiet"))
    var quiet = false

    @Flag(name: .shortAndLong, help: .key("verbose"))
    var verbose = false

    @Option(name: .long, help: .key("log-level", listsValues: true), transform: { text in
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
