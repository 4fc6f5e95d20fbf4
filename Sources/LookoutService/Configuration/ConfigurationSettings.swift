import Lookout
import Logging

/// Every setting a key of the configuration file (and an option of `lookout run`) can give, each
/// nil until given. The file's global sections fill one of these, each camera's section another
/// (with the keys a camera may override), the command line a third; `overlaid(by:)` stacks them,
/// and what stays nil takes its default (`ConfigurationKey.defaultValue`, or one that depends on
/// the input, decided by the service builder).
public struct ConfigurationSettings: Sendable, Hashable {
    // capture
    /// Camera frame size (`size`).
    public var size: FrameSize?
    /// Camera pixel format, a fourcc (`pixel-format`).
    public var pixelFormat: String?
    public var buffers: Int?
    /// Camera controls set before streaming, in order (`control`): some take effect only after
    /// another (an absolute focus after autofocus is off).
    public var controls: [CameraControlSetting]?
    /// Seconds without a frame before the camera counts as lost (`watchdog`).
    public var watchdog: Double?
    public var exitOnLoss: Bool?
    public var fps: Double?
    public var realtime: Bool?
    public var hwaccel: String?
    // detection
    public var types: [MetadataObjectType]?
    public var rectOfInterest: Rect?
    public var density: Int?
    public var codeBudget: Double?
    public var codeBudgetRate: Double?
    public var charset: String?
    public var codeResolution: CodeScanResolution?
    public var faceRate: Double?
    public var faceFullSearch: DurationValue?
    public var codeScanRate: Double?
    public var motionThreshold: Int?
    public var faceModel: String?
    public var faceVerifier: String?
    public var verifyNeighbors: Int?
    public var faceProfile: String?
    public var faceJoin: Bool?
    public var faceConfirm: Int?
    public var scaleFactor: Double?
    public var minNeighbors: Int?
    public var minFace: Int?
    public var faceWidth: Int?
    // events
    public var events: EventMode?
    public var dedupe: DurationValue?
    public var presenceOn: Int?
    public var presenceWindow: DurationValue?
    public var presenceOff: DurationValue?
    public var faceLeave: DurationValue?
    // snapshots
    public var snapshots: String?
    public var snapshotBoxes: Bool?
    public var snapshotClean: Bool?
    public var snapshotKeep: Int?
    /// The events that take a snapshot (`snapshot-on`).
    public var snapshotOn: [SnapshotTrigger]?
    // recordings
    public var record: String?
    public var recordOn: ClipRecorder.Trigger?
    public var preRoll: DurationValue?
    public var postRoll: DurationValue?
    public var segment: DurationValue?
    public var recordKeep: ByteCountValue?
    public var recordMaxAge: AgeValue?
    public var recordMemory: ByteCountValue?
    // keyboard
    public var keyboard: Bool?
    public var keyboardLayout: KeyboardLayout?
    public var keyboardSuffix: KeyboardSuffix?
    public var keyboardPrefix: String?
    /// Type the AIM symbology identifier before each code (`keyboard-aim`).
    public var keyboardAIM: Bool?
    public var keyboardDelay: DurationValue?
    /// The same symbol timeout (`keyboard-dedupe`).
    public var keyboardDedupe: DurationValue?
    /// Typed instead of GS (`keyboard-gs`).
    public var keyboardGS: String?
    public var keyboardSubstitute: String?
    // output
    public var format: LineFormat?
    public var stats: Bool?
    public var quiet: Bool?
    public var verbose: Bool?
    public var logLevel: Logger.Level?
    // mqtt
    public var mqtt: String?
    public var mqttUser: String?
    public var mqttPasswordFile: String?
    public var mqttCA: String?
    public var mqttCert: String?
    public var mqttKey: String?
    public var mqttClientID: String?
    public var mqttQueue: Int?
    /// Where Lookout keeps what outlives a run: each camera's MQTT outbox.
    public var stateDir: String?
    public var outboxMaxSize: ByteCountValue?
    public var outboxMaxAge: AgeValue?
    public var haDiscovery: Bool?
    public var haPrefix: String?
    /// The camera's name in MQTT topics (default: the camera's name).
    public var mqttName: String?
    // hooks
    public var onCode: [String]?
    public var onPresence: [String]?
    public var hookTimeout: DurationValue?
    public var hookJobs: Int?
    // http
    public var http: String?
    public var httpTokenFile: String?
    public var httpInsecure: Bool?
    public var httpAllowedHosts: [String]?
    public var httpAllowedOrigins: [String]?
    public var previewFPS: Double?
    // limits
    public var maxPixels: PixelCountValue?
    // regions
    /// Parts of the picture never reported; motion in them does not wake the detectors.
    public var masks: [RegionPolygon]?
    /// Named parts of the picture, in order: each line carries the first that holds its
    /// detection, and presence is kept per zone.
    public var zones: [Zone]?

    public init() {}

    /// These settings with every one `other` gives replaced by `other`'s.
    public func overlaid(by other: ConfigurationSettings) -> ConfigurationSettings {
        var result = self
        for key in ConfigurationKey.all { key.overlay(&result, other) }
        return result
    }

    /// Only the service-wide keys (output, MQTT, hooks, HTTP, limits): what the shared parts are
    /// built from.
    public var serviceWide: ConfigurationSettings {
        var result = ConfigurationSettings()
        for key in ConfigurationKey.all where key.scope == .global && !Self.appliedAtStartOnly.contains(key.name) { key.overlay(&result, self) }
        return result
    }

    /// Keys the command line reads once, at start (the summary's form, diagnostics): a reload
    /// does not change them, and does not restart anything for them.
    public static let appliedAtStartOnly: Set<String> = ["stats", "quiet", "verbose", "log-level"]

    /// These settings with every key that has a fixed default filled in.
    public var withDefaults: ConfigurationSettings {
        var result = self
        for key in ConfigurationKey.all { key.fillDefault(&result) }
        return result
    }

    /// Every key's fixed default, as the key table states it (`ConfigurationKey.defaultValue`).
    public static let defaults = ConfigurationSettings().withDefaults

    /// A key that has a fixed default: its value here, or that default. The builders read
    /// defaults through this, so the key table is the one place that states them.
    public func resolved<Value>(_ path: KeyPath<ConfigurationSettings, Value?>) -> Value {
        guard let value = self[keyPath: path] ?? Self.defaults[keyPath: path] else {
            preconditionFailure("\(path) has no fixed default in ConfigurationKey.all")
        }
        return value
    }

    /// The keys given, by name.
    public var givenKeys: [String] { ConfigurationKey.all.filter { $0.isGiven(self) }.map(\.name) }
}

/// A camera control and the value to set it to, by the name `lookout devices --controls` shows.
public struct CameraControlSetting: Sendable, Hashable {
    public var name: String
    public var value: Int32
    public init(name: String, value: Int32) {
        self.name = name
        self.value = value
    }
}

/// What standard output carries.
public enum EventMode: String, Sendable, CaseIterable {
    /// A line per object per analysed frame.
    case frames
    /// A line per change: a code read, a face entering or leaving, presence on or off.
    case changes
}

/// A frame size, `WIDTHxHEIGHT`.
public struct FrameSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// The largest width or height a camera is asked for.
    public static let maximumSide = 16384

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `1280x720`; nil for anything else, or a side outside 1 to `maximumSide`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], (1...Self.maximumSide).contains(width),
              (1...Self.maximumSide).contains(height) else { return nil }
        self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}
