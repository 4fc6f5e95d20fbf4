import ArgumentParser
import Lookout

extension ClipRecorder.Trigger: ExpressibleByArgument {}

/// Clips of what happened around events (`--record DIR`).
struct RecordingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Record Matroska clips around events into this directory (made if missing); each finished clip gives a \"recording\" line.",
        valueName: "dir"))
    var record: String?

    @Option(name: .customLong("record-on"), help: ArgumentHelp(
        "What makes a clip: presence (a clip per presence session), codes (a clip per code event), or always (continuous segments).",
        valueName: "presence|codes|always"))
    var trigger = ClipRecorder.Trigger.presence

    @Option(name: .customLong("pre-roll"), help: ArgumentHelp(
        "How much of the stream before the event a clip starts with (kept in memory, within --record-memory).", valueName: "time"))
    var preRoll = DurationArgument(seconds: 5)

    @Option(name: .customLong("post-roll"), help: ArgumentHelp(
        "How long a clip goes on after the event ends (the last face seen, the code read).", valueName: "time"))
    var postRoll = DurationArgument(seconds: 5)

    @Option(name: .long, help: ArgumentHelp("Length of each file with --record-on always.", valueName: "time"))
    var segment = DurationArgument(seconds: 60)

    @Option(name: .customLong("record-keep"), help: ArgumentHelp(
        "Keep at most this much in clips (e.g. 10G, 500M); the oldest are deleted first.", valueName: "size"))
    var keep: ByteCountArgument?

    @Option(name: .customLong("record-max-age"), help: ArgumentHelp(
        "Delete clips older than this (e.g. 7d, 12h, 30m).", valueName: "age"))
    var maxAge: AgeArgument?

    @Option(name: .customLong("record-memory"), help: ArgumentHelp(
        "Memory for the pre-roll and for frames waiting for the disk, at most: the frame ring's bound.", valueName: "size"))
    var memory = ByteCountArgument(bytes: Int64(MovieFileOutput.defaultFrameRingCapacity))

    mutating func validate() throws {
        if let record, record.isEmpty { throw ValidationError("--record needs a directory.") }
        guard record != nil || !isCustomized else {
            throw ValidationError("the recording options need --record DIR.")
        }
        if preRoll.seconds > 60 { throw ValidationError("--pre-roll must be at most 60 s.") }
        if postRoll.seconds > 3600 { throw ValidationError("--post-roll must be at most 3600 s.") }
        if segment.seconds < 1 { throw ValidationError("--segment must be at least 1 s.") }
        guard (1 << 20...1 << 34).contains(memory.bytes) else {
            throw ValidationError("--record-memory must be between 1M and 16G.")
        }
        if let keep, keep.bytes < 1 << 20 { throw ValidationError("--record-keep must be at least 1M.") }
    }

    /// True when an option other than --record was given.
    private var isCustomized: Bool {
        trigger != .presence || preRoll.seconds != 5 || postRoll.seconds != 5 || segment.seconds != 60
            || keep != nil || maxAge != nil || memory.bytes != Int64(MovieFileOutput.defaultFrameRingCapacity)
    }

    /// The recorder, joined to `pipeline`, when clips are asked for: into `directory` (--record,
    /// or the camera's own folder in it).
    func makeRecorder(pipeline: DetectionPipeline, directory: Folder?, diagnostics: @escaping @Sendable (String) -> Void) throws(CaptureError) -> ClipRecorder? {
        guard let record = directory else { return nil }
        var settings = ClipRecorder.Settings()
        settings.trigger = trigger
        settings.preRoll = preRoll.time
        settings.postRoll = postRoll.time
        settings.segmentDuration = segment.time
        settings.retention = RecordingRetention(maximumBytes: keep?.bytes, maximumAge: maxAge?.seconds)
        settings.frameRingCapacity = Int(memory.bytes)
        return try ClipRecorder(pipeline: pipeline, directory: record, settings: settings, diagnostics: diagnostics)
    }
}
