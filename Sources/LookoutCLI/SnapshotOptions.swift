import ArgumentParser
import Lookout
import LookoutService

/// Snapshots of the frames events are decided on (`--snapshots DIR`); `--snapshot-clean` and
/// `--snapshot-keep` are the key table's alone.
struct SnapshotOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Write a JPEG of the frame for each code, face_enter and presence-on event into this directory (made if missing); the event line names it in \"snapshot\".",
        valueName: "dir"))
    var snapshots: String?

    @Flag(name: .customLong("snapshot-boxes"), inversion: .prefixedNo,
          help: "Draw the event's objects (outline and label) on snapshots. (default: --snapshot-boxes)")
    var boxes: Bool?

    @Option(name: .customLong("snapshot-on"), help: ArgumentHelp(
        "The events that take a snapshot, comma-separated: " + SnapshotTrigger.allCases.map(\.rawValue).joined(separator: ", ") + " (presence: when it turns on). (default: all)",
        valueName: "events"))
    var on: String?

    /// --snapshot-on's events.
    func parsedTriggers() throws -> [SnapshotTrigger]? {
        guard let on else { return nil }
        let names = on.split(separator: ",").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
        let triggers = names.compactMap(SnapshotTrigger.init(rawValue:))
        guard !names.isEmpty, triggers.count == names.count else {
            throw ValidationError("--snapshot-on takes a comma-separated list of " + SnapshotTrigger.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(on)'.")
        }
        return triggers
    }

    mutating func validate() throws {
        _ = try parsedTriggers()
        if let snapshots, snapshots.isEmpty { throw ValidationError("--snapshots needs a directory.") }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.snapshots = snapshots
        settings.snapshotBoxes = boxes
        settings.snapshotOn = try? parsedTriggers()
        return settings
    }
}
