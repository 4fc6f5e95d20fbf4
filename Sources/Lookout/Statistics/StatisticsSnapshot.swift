/// Everything a running pipeline has counted, at one moment: frames, drops by reason, detections
/// and events, stage timings, the input's state, and a section from each part that counts its own
/// work (`sections`: MQTT, hooks, snapshots, recordings, the web server, each written by the part
/// itself). One value feeds the end-of-run summary (`--stats` line or sentence), `/api/status` and
/// `/metrics`, so they always agree.
public struct StatisticsSnapshot: Sendable {
    public var source: String
    /// The input's short name (`CameraName`), or nil where there is none.
    public var camera: String?
    public var input = InputState.starting
    /// The input's format as granted (size, pixel format, nominal rate), once known.
    public var format: VideoFormatDescription?
    /// Frames read per second over the last few seconds (0 until measured).
    public var measuredFrameRate = 0.0
    public var framesRead = 0
    public var framesAnalysed = 0
    public var framesCorrupt = 0
    public var drops = DropCounts()
    public var detections: [MetadataObjectType: Int] = [:]
    /// Objects not reported because their centre lay in a mask.
    public var objectsMasked = 0
    /// Events by kind (`code`, `face_enter`, `face_leave`, `presence`).
    public var events: [String: Int] = [:]
    public var isPresent = false
    public var faceAnalyses = 0
    public var faceFramesLate = 0
    public var framesUnchanged = 0
    /// Images zxing-cpp read for PDF417, Aztec or DataMatrix, and those its reader died on or
    /// overran (each skipped; the reader is restarted).
    public var zxingLooks = 0
    public var zxingFailures = 0
    public var framesNotDecoded = 0
    public var framesDecodedAtHalfSize = 0
    /// Frames whose picture an output wanted while every picture buffer was held.
    public var picturesUnavailable = 0
    /// Per-stage timings (`decode`, `codes`, `faces`, `code_latency`).
    public var timings: [Timing] = []
    /// The sections of the parts that report their own (`StatisticsReporting`), in the order
    /// the pipeline asked them.
    public var sections: [StatisticsSection] = []
    public var elapsedSeconds = 0.0

    public init(source: String, camera: String? = nil) {
        self.source = source
        self.camera = camera
    }

    public struct Timing: Sendable {
        public var name: String
        public var histogram: TimingHistogram
        public init(name: String, histogram: TimingHistogram) {
            self.name = name
            self.histogram = histogram
        }
    }

    public func timing(_ name: String) -> TimingHistogram? {
        timings.first { $0.name == name }?.histogram
    }

    /// The section named `name`, nil when no part reported one.
    public func section(_ name: String) -> StatisticsSection? {
        sections.first { $0.name == name }
    }

    /// The `kind: "stats"` line of schema version 1, newline included.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter()
        write(kind: "stats", into: &writer)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    /// The fields shared by the stats line and `/api/status`, in an object left open for more.
    package func write(kind: String, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("version"); writer.integer(DetectionLineEncoder.schemaVersion)
        writer.key("kind"); writer.string(kind)
        writer.key("source"); writer.string(source.repairedPath)
        if let camera { writer.key("camera"); writer.string(camera) }
        writer.key("input"); writer.string(input.rawValue)
        if let format {
            writer.key("format")
            writer.beginObject()
            writer.key("width"); writer.integer(format.width)
            writer.key("height"); writer.integer(format.height)
            writer.key("pixel_format"); writer.string(format.pixelFormat.rawValue)
            if let rate = format.frameRate { writer.key("fps"); writer.number(rate, fractionDigits: 3) }
            writer.endObject()
        }
        writer.key("fps_measured"); writer.number(measuredFrameRate, fractionDigits: 2)
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
        writer.key("objects_masked"); writer.integer(objectsMasked)
        writer.key("events")
        writer.beginObject()
        for kind in events.keys.sorted() {
            writer.key(kind); writer.integer(events[kind]!)
        }
        writer.endObject()
        writer.key("presence"); writer.string(isPresent ? "on" : "off")
        writer.key("face_analyses"); writer.integer(faceAnalyses)
        writer.key("face_frames_late"); writer.integer(faceFramesLate)
        writer.key("frames_unchanged"); writer.integer(framesUnchanged)
        writer.key("zxing_looks"); writer.integer(zxingLooks)
        writer.key("zxing_failures"); writer.integer(zxingFailures)
        writer.key("frames_not_decoded"); writer.integer(framesNotDecoded)
        writer.key("frames_decoded_half"); writer.integer(framesDecodedAtHalfSize)
        writer.key("pictures_unavailable"); writer.integer(picturesUnavailable)
        writer.key("timings")
        writer.beginObject()
        for timing in timings {
            let histogram = timing.histogram
            writer.key(timing.name)
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
        for section in sections {
            writer.key(section.name)
            StatisticsField.writeObject(section.fields, into: &writer)
        }
        writer.key("elapsed"); writer.number(elapsedSeconds, fractionDigits: 3)
        writer.key("time"); writer.string(WallClockTime.now().rfc3339)
    }

    /// One human-readable line for stderr.
    public var text: String {
        let dropped = DropReason.allCases.filter { drops[$0] > 0 }.map { "\(drops[$0]) \($0.rawValue)" }
        let found = detections.keys.sorted().map { "\(detections[$0]!) \($0.rawValue)" }
        var line = "\(camera.map { $0 + " (\(source))" } ?? source): \(framesRead) frames read, \(framesAnalysed) analysed, "
            + (dropped.isEmpty ? "none dropped" : "dropped " + dropped.joined(separator: ", "))
            + "; detections: " + (found.isEmpty ? "none" : found.joined(separator: ", "))
        for summary in sections.compactMap(\.summary) { line += "; " + summary }
        return line + " (\(elapsedSeconds.formatted(maxFractionDigits: 2)) s)"
    }
}
