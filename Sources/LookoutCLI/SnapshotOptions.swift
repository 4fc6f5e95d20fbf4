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
          help: "Draw the event's objects (outline and label) on snapshots.")
    var boxes = true

    @Flag(name: .customLong("snapshot-clean"), help: "Also write each snapshot without boxes, as <name>.clean.jpg.")
    var clean = false

    static let keepRange = ValueRange.integer(1...10_000_000)
    @Option(name: .customLong("snapshot-keep"), parsing: .unconditional, help: ArgumentHelp(
        "Keep the newest n snapshots in the directory; older ones are deleted (\(SnapshotOptions.keepRange.text)). (default: 1000)", valueName: "n"),
            transform: { try SnapshotOptions.keepRange.parse($0) })
    var keep = 1000

    mutating func validate() throws {
        if let snapshots, snapshots.isEmpty { throw ValidationError("--snapshots needs a directory.") }
    }

    /// The writer, when snapshots are asked for: into `directory` (--snapshots, or the camera's
    /// own folder in it).
    func makeWriter(directory: Folder?, diagnostics: @escaping @Sendable (String) -> Void) -> SnapshotWriter? {
        guard let snapshots = directory else { return nil }
        var options = SnapshotWriter.Options()
        options.drawsBoxes = boxes
        options.writesCleanCopy = clean
        options.keep = keep
        return SnapshotWriter(directory: snapshots, options: options, diagnostics: diagnostics)
    }
}
