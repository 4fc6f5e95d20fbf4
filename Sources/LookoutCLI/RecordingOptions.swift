import ArgumentParser
import Lookout
import LookoutService

extension ClipRecorder.Trigger: ExpressibleByArgument {}

/// Clips of what happened around events (`--record DIR`).
struct RecordingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Record Matroska clips around events into this directory (made if missing); each finished clip gives a \"recording\" line.",
        valueName: "dir"))
    var record: String?

    @Option(name: .customLong("record-on"), help: ArgumentHelp(
        "What makes a clip: presence (a clip per presence session), codes (a clip per code event), or always (continuous segments). (default: \(ConfigurationKey.defaultText(of: "record-on")))",
        valueName: "presence|codes|always"))
    var trigger: ClipRecorder.Trigger?

    static let preRollRange = ConfigurationKey.argumentRange("pre-roll", DurationValue.self)
    @Option(name: .customLong("pre-roll"), parsing: .unconditional, help: ArgumentHelp(
        "How much of the stream before the event a clip starts with (kept in memory, within --record-memory; \(RecordingOptions.preRollRange.text)). (default: \(ConfigurationKey.defaultText(of: "pre-roll")))",
        valueName: "time"), transform: { try RecordingOptions.preRollRange.parse($0) })
    var preRoll: DurationArgument?

    static let postRollRange = ConfigurationKey.argumentRange("post-roll", DurationValue.self)
    @Option(name: .customLong("post-roll"), parsing: .unconditional, help: ArgumentHelp(
        "How long a clip goes on after the event ends (the last face seen, the code read; \(RecordingOptions.postRollRange.text)). (default: \(ConfigurationKey.defaultText(of: "post-roll")))",
        valueName: "time"), transform: { try RecordingOptions.postRollRange.parse($0) })
    var postRoll: DurationArgument?

    static let segmentRange = ConfigurationKey.argumentRange("segment", DurationValue.self)
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Length of each file with --record-on always (\(RecordingOptions.segmentRange.text)). (default: \(ConfigurationKey.defaultText(of: "segment")))", valueName: "time"),
            transform: { try RecordingOptions.segmentRange.parse($0) })
    var segment: DurationArgument?

    static let keepRange = ConfigurationKey.argumentRange("record-keep", ByteCountValue.self)
    @Option(name: .customLong("record-keep"), parsing: .unconditional, help: ArgumentHelp(
        "Keep at most this much in clips (e.g. 10G, 500M; \(RecordingOptions.keepRange.text)); the oldest are deleted first.", valueName: "size"),
            transform: { try RecordingOptions.keepRange.parse($0) })
    var keep: ByteCountArgument?

    static let maxAgeRange = ConfigurationKey.argumentRange("record-max-age", AgeValue.self)
    @Option(name: .customLong("record-max-age"), parsing: .unconditional, help: ArgumentHelp(
        "Delete clips older than this (e.g. 7d, 12h, 30m; \(RecordingOptions.maxAgeRange.text)).", valueName: "age"),
            transform: { try RecordingOptions.maxAgeRange.parse($0) })
    var maxAge: AgeArgument?

    static let memoryRange = ConfigurationKey.argumentRange("record-memory", ByteCountValue.self)
    @Option(name: .customLong("record-memory"), parsing: .unconditional, help: ArgumentHelp(
        "Memory for the pre-roll and for frames waiting for the disk, at most: the frame ring's bound (\(RecordingOptions.memoryRange.text)). (default: \(ByteCountArgument(bytes: Int64(MovieFileOutput.defaultFrameRingCapacity))))",
        valueName: "size"), transform: { try RecordingOptions.memoryRange.parse($0) })
    var memory: ByteCountArgument?

    mutating func validate() throws {
        if let record, record.isEmpty { throw ValidationError("--record needs a directory.") }
    }

    /// Without a configuration file, the recording options need --record.
    func checkStandingAlone() throws {
        guard record != nil || !isCustomized else {
            throw ValidationError("the recording options need --record DIR.")
        }
    }

    /// True when an option other than --record was given.
    var isCustomized: Bool {
        trigger != nil || preRoll != nil || postRoll != nil || segment != nil || keep != nil || maxAge != nil || memory != nil
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.record = record
        settings.recordOn = trigger
        settings.preRoll = preRoll
        settings.postRoll = postRoll
        settings.segment = segment
        settings.recordKeep = keep
        settings.recordMaxAge = maxAge
        settings.recordMemory = memory
        return settings
    }
}
