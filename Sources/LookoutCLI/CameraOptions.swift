import ArgumentParser
import Lookout
import LookoutService

/// Options that configure a camera (`--input /dev/videoN`, or the default camera) and read more
/// than their key's table states; the others (`--buffers`, `--watchdog`, ...) are the table's alone.
struct CameraOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: .key("size"))
    var size: String?

    @Option(name: .customLong("control"), help: .key("control", repeatable: true, readsOwnForm: true))
    var controls: [String] = []

    mutating func validate() throws {
        _ = try parsedSize()
        _ = try parsedControls()
    }

    func parsedSize() throws -> FrameSize? {
        guard let size else { return nil }
        guard let parsed = FrameSize(parsing: size) else {
            throw ValidationError("--size takes WIDTHxHEIGHT, each side 1 to \(FrameSize.maximumSide), e.g. 1280x720, not '\(size)'.")
        }
        return parsed
    }

    func parsedControls() throws -> [CameraControlSetting]? {
        guard !controls.isEmpty else { return nil }
        var parsed: [CameraControlSetting] = []
        for text in controls {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int32(parts[1].trimmingSpaces()), !parts[0].isEmpty else {
                throw ValidationError("--control takes name=value with a whole number from \(Int32.min) to \(Int32.max), e.g. brightness=128, not '\(text)'.")
            }
            parsed.append(CameraControlSetting(name: parts[0].trimmingSpaces().lowercased(), value: value))
        }
        return parsed
    }

    /// The options given, as configuration settings.
    func settings() throws -> ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.size = try parsedSize()
        settings.controls = try parsedControls()
        return settings
    }
}
