import ArgumentParser
import Lookout

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

    @Option(name: .long, help: ArgumentHelp(
        "A code is reported once while in view and not again until it has been gone this long.", valueName: "time"))
    var dedupe = DurationArgument(seconds: 2)

    @Option(name: .customLong("presence-on"), help: ArgumentHelp(
        "Presence turns on after this many analyses with a face within --presence-window.", valueName: "n"))
    var presenceOn = 2

    @Option(name: .customLong("presence-window"), help: ArgumentHelp(
        "The window for --presence-on.", valueName: "time"))
    var presenceWindow = DurationArgument(seconds: 1)

    @Option(name: .customLong("presence-off"), help: ArgumentHelp(
        "Presence turns off only after this long without a face.", valueName: "time"))
    var presenceOff = DurationArgument(seconds: 5)

    @Option(name: .customLong("face-leave"), help: ArgumentHelp(
        "A face missed for up to this long keeps its ID; longer, and it has left (face_leave).", valueName: "time"))
    var faceLeave = DurationArgument(seconds: 1)

    mutating func validate() throws {
        guard (1...100).contains(presenceOn) else { throw ValidationError("--presence-on must be between 1 and 100.") }
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
