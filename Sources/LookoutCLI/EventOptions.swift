import ArgumentParser
import Lookout
import LookoutService

/// What standard output carries.
enum EventMode: String, ExpressibleByArgument, CaseIterable {
    /// A line per object per analysed frame.
    case frames
    /// A line per change: a code read, a face entering or leaving, presence on or off.
    case changes
}

/// Options that turn detections into events (`--events changes`, MQTT, hooks).
struct EventOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "frames: a line per object per analysed frame; changes: a line per event (code read, face_enter, face_leave, presence).",
        valueName: "mode"))
    var events: EventMode = .frames

    /// The range of every event time.
    static let timeRange = ValueRange.duration(0...86_400)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "A code is reported once while in view and not again until it has been gone this long (\(EventOptions.timeRange.text)). (default: 2s)", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var dedupe = DurationArgument(seconds: 2)

    static let presenceOnRange = ValueRange.integer(1...100)
    @Option(name: .customLong("presence-on"), parsing: .unconditional, help: ArgumentHelp(
        "Presence turns on after this many analyses with a face within --presence-window (\(EventOptions.presenceOnRange.text)). (default: 2)", valueName: "n"),
            transform: { try EventOptions.presenceOnRange.parse($0) })
    var presenceOn = 2

    @Option(name: .customLong("presence-window"), parsing: .unconditional, help: ArgumentHelp(
        "The window for --presence-on (\(EventOptions.timeRange.text); above 0 when --presence-on is above 1). (default: 1s)", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var presenceWindow = DurationArgument(seconds: 1)

    @Option(name: .customLong("presence-off"), parsing: .unconditional, help: ArgumentHelp(
        "Presence turns off only after this long without a face (\(EventOptions.timeRange.text)). (default: 5s)", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var presenceOff = DurationArgument(seconds: 5)

    @Option(name: .customLong("face-leave"), parsing: .unconditional, help: ArgumentHelp(
        "A face missed for up to this long keeps its ID; longer, and it has left (face_leave; \(EventOptions.timeRange.text)). (default: 1s)", valueName: "time"),
            transform: { try EventOptions.timeRange.parse($0) })
    var faceLeave = DurationArgument(seconds: 1)

    mutating func validate() throws {
        guard presenceWindow.time > .zero || presenceOn == 1 else {
            throw ValidationError("--presence-window must be above 0 when --presence-on is above 1.")
        }
    }

    var settings: EventSettings {
        var settings = EventSettings()
        settings.dedupeWindow = dedupe.time
        settings.presenceOnCount = presenceOn
        settings.presenceOnWindow = presenceWindow.time
        settings.presenceOffDelay = presenceOff.time
        settings.faceLeaveDelay = faceLeave.time
        return settings
    }
}
