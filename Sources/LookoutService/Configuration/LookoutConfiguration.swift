import Lookout

/// Everything a Lookout service is: the global settings (the file's sections: capture, detection,
/// events, snapshots, recordings, keyboard, output, mqtt, hooks, http, limits) and the named cameras, each
/// with its input and its overrides of the globals. `Service` builds and runs every part from one
/// such value and reloads from the next; `ConfigurationFile` reads one from YAML; `lookout run`
/// makes one from its options (over a file's, with `--config`).
///
/// Codable as the file's own shape: `{capture: {...}, ..., cameras: {NAME: {input: ..., KEY: ...}}}`.
public struct LookoutConfiguration: Sendable, Hashable {
    /// The global settings: every camera's defaults and the service-wide parts.
    public var settings: ConfigurationSettings
    /// The cameras, in the order given; names are unique.
    public var cameras: [CameraConfiguration]

    public init(settings: ConfigurationSettings = ConfigurationSettings(), cameras: [CameraConfiguration] = []) {
        self.settings = settings
        self.cameras = cameras
    }

    /// A camera's settings as they apply: its own over the globals, then `overrides` (the command
    /// line) over both, with every fixed default filled in.
    public func effectiveSettings(of camera: CameraConfiguration, overrides: ConfigurationSettings = ConfigurationSettings()) -> ConfigurationSettings {
        settings.overlaid(by: camera.settings).overlaid(by: overrides).withDefaults
    }

    /// The camera named `name`.
    public func camera(named name: String) -> CameraConfiguration? { cameras.first { $0.name == name } }
}

/// One camera: its name, its input, and the settings it gives itself over the globals.
public struct CameraConfiguration: Sendable, Hashable {
    /// `camera` in lines, MQTT topics, metrics and folders: 1 to 64 letters, digits, _ and -.
    public var name: String
    /// A device (/dev/videoN, /dev/v4l/by-id/...), a file, `-` for standard input, or a URL;
    /// "" for the first camera.
    public var input: String
    /// Its overrides: only keys a camera may hold (`ConfigurationKey.isCameraKey`).
    public var settings: ConfigurationSettings

    public init(name: String, input: String, settings: ConfigurationSettings = ConfigurationSettings()) {
        self.name = name
        self.input = input
        self.settings = settings
    }
}

extension LookoutConfiguration: Codable {
    public init(from decoder: any Decoder) throws {
        let value = try ConfigurationValue(from: decoder)
        switch ConfigurationReader.read(value, file: "<decoded>") {
        case .success(let configuration): self = configuration
        case .failure(let problems):
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: problems.problems.map(\.description).joined(separator: "; ")))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try ConfigurationWriter.value(of: self).encode(to: encoder)
    }
}
