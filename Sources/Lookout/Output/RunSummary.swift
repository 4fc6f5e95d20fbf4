/// The end-of-run summary: what was read, analysed, dropped and found.
public struct RunSummary: Sendable {
    public var source: String
    public var framesRead: Int
    public var framesAnalysed: Int
    public var drops: DropCounts
    public var detections: [MetadataObjectType: Int]
    public var elapsedSeconds: Double
    /// Frames analysed for faces, the face queue was too busy for, and found unchanged.
    public var faceAnalyses = 0
    public var faceFramesLate = 0
    public var framesUnchanged = 0
    /// JPEG frames the session found unchanged before decoding them (`--motion-threshold`).
    public var framesNotDecoded = 0
    /// JPEG frames decoded at half size (codes read at half resolution or not at all, no faces due).
    public var framesDecodedAtHalfSize = 0
    /// Per-stage timings by name (`decode`, `codes`, `faces`, `code_latency`).
    public var timings: [(name: String, histogram: TimingHistogram)] = []

    public init(source: String, framesRead: Int, framesAnalysed: Int, drops: DropCounts,
                detections: [MetadataObjectType: Int], elapsedSeconds: Double) {
        self.source = source
        self.framesRead = framesRead
        self.framesAnalysed = framesAnalysed
        self.drops = drops
        self.detections = detections
        self.elapsedSeconds = elapsedSeconds
    }

    /// The `kind: "stats"` line of schema version 1, newline included.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("version"); writer.integer(DetectionLineEncoder.schemaVersion)
        writer.key("kind"); writer.string("stats")
        writer.key("source"); writer.string(source.repairedPath)
        writer.key("frames_read"); writer.integer(framesRead)
        writer.key("frames_analysed"); writer.integer(framesAnalysed)
        writer.key("dropped")
        writer.beginObject()
        for reason in DropReason.allCases {
            writer.key(reason.rawValue); writer.integer(drops[reason])
        }
        writer.endObject()
        writer.key("detections")
        writer.beginObject()
        for type in detections.keys.sorted() {
            writer.key(type.rawValue); writer.integer(detections[type]!)
        }
        writer.endObject()
        writer.key("face_analyses"); writer.integer(faceAnalyses)
        writer.key("face_frames_late"); writer.integer(faceFramesLate)
        writer.key("frames_unchanged"); writer.integer(framesUnchanged)
        writer.key("frames_not_decoded"); writer.integer(framesNotDecoded)
        writer.key("frames_decoded_half"); writer.integer(framesDecodedAtHalfSize)
        writer.key("timings")
        writer.beginObject()
        for (name, histogram) in timings {
            writer.key(name)
            writer.beginObject()
            writer.key("count"); writer.integer(histogram.count)
            writer.key("mean_ms"); writer.number(histogram.meanMilliseconds, fractionDigits: 3)
            writer.key("p50_ms"); writer.number(histogram.percentileMilliseconds(0.5), fractionDigits: 3)
            writer.key("p90_ms"); writer.number(histogram.percentileMilliseconds(0.9), fractionDigits: 3)
            writer.key("p99_ms"); writer.number(histogram.percentileMilliseconds(0.99), fractionDigits: 3)
            writer.key("max_ms"); writer.number(histogram.maximumMilliseconds, fractionDigits: 3)
            writer.endObject()
        }
        writer.endObject()
        writer.key("elapsed"); writer.number(elapsedSeconds, fractionDigits: 3)
        writer.key("time"); writer.string(WallClockTime.now().rfc3339)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    /// One human-readable line for stderr.
    public var text: String {
        let dropped = DropReason.allCases.filter { drops[$0] > 0 }.map { "\(drops[$0]) \($0.rawValue)" }
        let found = detections.keys.sorted().map { "\(detections[$0]!) \($0.rawValue)" }
        return "\(source): \(framesRead) frames read, \(framesAnalysed) analysed, "
            + (dropped.isEmpty ? "none dropped" : "dropped " + dropped.joined(separator: ", "))
            + "; detections: " + (found.isEmpty ? "none" : found.joined(separator: ", "))
            + " (\(elapsedSeconds.formatted(maxFractionDigits: 2)) s)"
    }
}
