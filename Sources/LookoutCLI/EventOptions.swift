import ArgumentParser
import Lookout
import LookoutService

extension EventMode: ExpressibleByArgument {}

/// Options that turn detections into events (`--events changes`, MQTT, hooks).
struct EventOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "frames: a line per object per analysed frame; changes: a line per event (code read, face_enter, face_leave, presence). (default: \(ConfigurationKey.defaultText(of: "events")))",
        valueName: "mode"))
    var events: EventMode?

    /// The range of every event time.
    static let timeRange = ConfigurationKey.argumentRange("dedupe", DurationValue.self)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "A code is reported once while in view and not again until it has been gone this long (\(EventOptions.timeRange.text)). (default: \(ConfigurationKey.defaultText(of: "dedupe")))", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var dedupe: DurationArgument?

    static let presenceOnRange = ConfigurationKey.argumentRange("presence-on", Int.self)
    @Option(name: .customLong("presence-on"), parsing: .unconditional, help: ArgumentHelp(
        "Presence turns on after this many analyses with a face within --presence-window (\(EventOptions.presenceOnRange.text)). (default: \(ConfigurationKey.defaultText(of: "presence-on")))", valueName: "n"),
            transform: { try EventOptions.presenceOnRange.parse($0) })
    var presenceOn: Int?

    @Option(name: .customLong("presence-window"), parsing: .unconditional, help: ArgumentHelp(
        "The window for --presence-on (\(EventOptions.timeRange.text); above 0 when --presence-on is above 1). (default: \(ConfigurationKey.defaultText(of: "presence-window")))", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var presenceWindow: DurationArgument?

    @Option(name: .customLong("presence-off"), parsing: .unconditional, help: ArgumentHelp(
        "Presence turns off only after this long without a face (\(EventOptions.timeRange.text)). (default: \(ConfigurationKey.defaultText(of: "presence-off")))", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var presenceOff: DurationArgument?

    @Option(name: .customLong("face-leave"), parsing: .unconditional, help: ArgumentHelp(
        "A face missed for up to this long keeps its ID; longer, and by 3 analyses in a row (or 3 times this long, however few analyses frames dropped left), it has left (face_leave; \(EventOptions.timeRange.text)). (default: \(ConfigurationKey.defaultText(of: "face-leave")))", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var faceLeave: DurationArgument?

    mutating func validate() throws {
        guard (presenceWindow?.time ?? MediaTime(seconds: 1)) > .zero || (presenceOn ?? 2) == 1 else {
            throw ValidationError("--presence-window must be above 0 when --presence-on is above 1.")
        }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.events = events
        settings.dedupe = dedupe
        settings.presenceOn = presenceOn
        settings.presenceWindow = presenceWindow
        settings.presenceOff = presenceOff
        settings.faceLeave = faceLeave
        return settings
    }
}
