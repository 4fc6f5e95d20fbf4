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

    static let preRollRange = ValueRange.duration(0...60)
    @Option(name: .customLong("pre-roll"), parsing: .unconditional, help: ArgumentHelp(
        "How much of the stream before the event a clip starts with (kept in memory, within --record-memory; \(RecordingOptions.preRollRange.text)). (default: 5s)",
        valueName: "time"), transform: { try RecordingOptions.preRollRange.parse($0) })
    var preRoll = DurationArgument(seconds: 5)

    static let postRollRange = ValueRange.duration(0...3600)
    @Option(name: .customLong("post-roll"), parsing: .unconditional, help: ArgumentHelp(
        "How long a clip goes on after the event ends (the last face seen, the code read; \(RecordingOptions.postRollRange.text)). (default: 5s)",
        valueName: "time"), transform: { try RecordingOptions.postRollRange.parse($0) })
    var postRoll = DurationArgument(seconds: 5)

    static let segmentRange = ValueRange.duration(1...86_400)
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Length of each file with --record-on always (\(RecordingOptions.segmentRange.text)). (default: 60s)", valueName: "time"),
            transform: { try RecordingOptions.segmentRange.parse($0) })
    var segment = DurationArgument(seconds: 60)

    static let keepRange = ValueRange.bytes((1 << 20)...(1 << 50))
    @Option(name: .customLong("record-keep"), parsing: .unconditional, help: ArgumentHelp(
        "Keep at most this much in clips (e.g. 10G, 500M; \(RecordingOptions.keepRange.text)); the oldest are deleted first.", valueName: "size"),
            transform: { try RecordingOptions.keepRange.parse($0) })
    var keep: ByteCountArgument?

    static let maxAgeRange = ValueRange.age(1...(3650 * 86_400))
    @Option(name: .customLong("record-max-age"), parsing: .unconditional, help: ArgumentHelp(
        "Delete clips older than this (e.g. 7d, 12h, 30m; \(RecordingOptions.maxAgeRange.text)).", valueName: "age"),
            transform: { try RecordingOptions.maxAgeRange.parse($0) })
    var maxAge: AgeArgument?

    static let memoryRange = ValueRange.bytes((1 << 20)...(1 << 34))
    @Option(name: .customLong("record-memory"), parsing: .unconditional, help: ArgumentHelp(
        "Memory for the pre-roll and for frames waiting for the disk, at most: the frame ring's bound (\(RecordingOptions.memoryRange.text)). (default: \(ByteCountArgument(bytes: Int64(MovieFileOutput.defaultFrameRingCapacity))))",
        valueName: "size"), transform: { try RecordingOptions.memoryRange.parse($0) })
    var memory = ByteCountArgument(bytes: Int64(MovieFileOutput.defaultFrameRingCapacity))

    mutating func validate() throws {
        if let record, record.isEmpty { throw ValidationError("--record needs a directory.") }
        guard record != nil || !isCustomized else {
            throw ValidationError("the recording options need --record DIR.")
        }
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
        let recorder = ClipRecorder(directory: record, settings: settings, diagnostics: diagnostics)
        try pipeline.session.addOutput(recorder.output)
        pipeline.addSink(recorder)
        recorder.onEvent = { [weak pipeline] event in pipeline?.post(event) }
        return recorder
    }
}
