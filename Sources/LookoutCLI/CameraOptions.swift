import ArgumentParser
import Lookout
import LookoutService

/// Options that configure a camera (`--input /dev/videoN`, or the default camera) and that `run`
/// checks itself (`--size` against `--max-pixels`) or that take a form of their own (`--control
/// name=value`); each is read by its key. The others (`--buffers`, `--watchdog`, ...) are the table's alone.
struct CameraOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: .key("size"))
    var size: String?

    @Option(name: .customLong("control"), help: .key("control", repeatable: true, readsOwnForm: true))
    var controls: [String] = []

    mutating func validate() throws {
        _ = try settings()
    }

    /// The options given, as configuration settings, each read by its key as the file's value is.
    func settings() throws -> ConfigurationSettings {
        var settings = ConfigurationSettings()
        if let size { settings = settings.overlaid(by: try .option("size", .string(size), given: [size])) }
        if !controls.isEmpty {
            // name=value is the option's own form of the file's map entry `name: value`.
            let entries = try controls.map { text in
                let parts = text.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else {
                    throw ValidationError("--control takes name=value, e.g. brightness=128, not '\(text)'.")
                }
                return ConfigurationValue.Entry(key: parts[0].trimmingSpaces(), value: .string(parts[1].trimmingSpaces()))
            }
            settings = settings.overlaid(by: try .option("control", .map(entries), given: controls))
        }
        return settings
    }
}
