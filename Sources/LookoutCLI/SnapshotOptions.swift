import ArgumentParser
import Lookout
import LookoutService

/// Snapshots of the frames events are decided on (`--snapshots DIR`).
struct SnapshotOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Write a JPEG of the frame for each code, face_enter and presence-on event into this directory (made if missing); the event line names it in \"snapshot\".",
        valueName: "dir"))
    var snapshots: String?

    @Flag(name: .customLong("snapshot-boxes"), inversion: .prefixedNo,
          help: "Draw the event's objects (outline and label) on snapshots. (default: --snapshot-boxes)")
    var boxes: Bool?

    @Flag(name: .customLong("snapshot-clean"), help: "Also write each snapshot without boxes, as <name>.clean.jpg.")
    var clean = false

    static let keepRange = ValueRange.integer(1...10_000_000)
    @Option(name: .customLong("snapshot-keep"), parsing: .unconditional, help: ArgumentHelp(
        "Keep the newest n snapshots in the directory; older ones are deleted (\(SnapshotOptions.keepRange.text)). (default: 1000)", valueName: "n"),
            transform: { try SnapshotOptions.keepRange.parse($0) })
    var keep: Int?

    mutating func validate() throws {
        if let snapshots, snapshots.isEmpty { throw ValidationError("--snapshots needs a directory.") }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.snapshots = snapshots
        settings.snapshotBoxes = boxes
        if clean { settings.snapshotClean = true }
        settings.snapshotKeep = keep
        return settings
    }
}
