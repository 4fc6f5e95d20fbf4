/// Everything a running pipeline has counted, at one moment: frames, drops by reason, detections
/// and events, stage timings, the input's state, and what each sink did (MQTT, hooks, snapshots,
/// HTTP clients). One value feeds the end-of-run summary (`--stats` line or sentence),
/// `/api/status` and `/metrics`, so they always agree.
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
    public var framesNotDecoded = 0
    public var framesDecodedAtHalfSize = 0
    /// Frames whose picture an output wanted while every picture buffer was held.
    public var picturesUnavailable = 0
    /// Per-stage timings (`decode`, `codes`, `faces`, `code_latency`).
    public var timings: [Timing] = []
    public var mqtt: MQTTStatistics?
    public var hooks: [HookStatistics] = []
    public var snapshots: SnapshotStatistics?
    public var recordings: RecordingStatistics?
    public var http: HTTPStatistics?
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

    public struct MQTTStatistics: Sendable, Equatable {
        /// Events the broker acknowledged, dropped because the queue was full, and waiting now.
        public var acknowledged = 0
        public var dropped = 0
        public var queued = 0
        public var connected = false
        public init() {}
    }

    public struct HookStatistics: Sendable, Equatable {
        public var name: String
        public var runs = 0
        public var failed = 0
        public var timedOut = 0
        public var dropped = 0
        public init(name: String) { self.name = name }
    }

    public struct SnapshotStatistics: Sendable, Equatable {
        public var written = 0
        public var failed = 0
        /// Why the last write failed, while the failure lasts.
        public var lastError: String?
        public init() {}
    }

    /// Clips (`--record`): the movie file output's counters and frame ring, whether a clip is
    /// being written, and why the last one failed.
    public struct RecordingStatistics: Sendable, Equatable {
        public var output = MovieFileOutput.Statistics()
        public var recording = false
        public var lastError: String?
        public init() {}
    }

    public struct HTTPStatistics: Sendable, Equatable {
        /// Clients on `/api/stream.mjpeg` and `/api/events` now.
        public var streamClients = 0
        public var eventClients = 0
        public var requests = 0
        /// Pictures JPEG-encoded (or passed through) for viewers, and frames a slow viewer missed.
        public var previewFrames = 0
        public var previewFramesSkipped = 0
        /// Clients disconnected for not reading.
        public var slowClientsDisconnected = 0
        public init() {}
    }

    public func timing(_ name: String) -> TimingHistogram? {
        timings.first { $0.name == name }?.histogram
    }

    /// The `kind: "stats"` line of schema version 1, newline included.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter()
        write(kind: "stats", into: &writer)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    /// The fields shared by the stats line and `/api/status`, in an object left open for more.
    public func write(kind: String, into writer: inout JSONWriter) {
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
        if let mqtt {
            writer.key("mqtt")
            writer.beginObject()
            writer.key("connected"); writer.bool(mqtt.connected)
            writer.key("acknowledged"); writer.integer(mqtt.acknowledged)
            writer.key("dropped"); writer.integer(mqtt.dropped)
            writer.key("queued"); writer.integer(mqtt.queued)
            writer.endObject()
        }
        if !hooks.isEmpty {
            writer.key("hooks")
            writer.beginObject()
            for hook in hooks {
                writer.key(hook.name)
                writer.beginObject()
                writer.key("runs"); writer.integer(hook.runs)
                writer.key("failed"); writer.integer(hook.failed)
                writer.key("timed_out"); writer.integer(hook.timedOut)
                writer.key("dropped"); writer.integer(hook.dropped)
                writer.endObject()
            }
            writer.endObject()
        }
        if let snapshots {
            writer.key("snapshots")
            writer.beginObject()
            writer.key("written"); writer.integer(snapshots.written)
            writer.key("failed"); writer.integer(snapshots.failed)
            if let error = snapshots.lastError { writer.key("last_error"); writer.string(error) }
            writer.endObject()
        }
        if let recordings {
            writer.key("recordings")
            writer.beginObject()
            let output = recordings.output
            writer.key("finished"); writer.integer(output.recordingsFinished)
            writer.key("failed"); writer.integer(output.recordingsFailed)
            writer.key("recording"); writer.bool(recordings.recording)
            writer.key("frames_written"); writer.integer(output.framesWritten)
            writer.key("frames_lost"); writer.integer(output.framesLost)
            writer.key("ring_bytes"); writer.integer(output.ringBytes)
            writer.key("ring_bytes_peak"); writer.integer(output.ringBytesPeak)
            writer.key("ring_bytes_resident"); writer.integer(output.ringBytesResident)
            writer.key("ring_capacity"); writer.integer(output.ringCapacity)
            if let error = recordings.lastError { writer.key("last_error"); writer.string(error) }
            writer.endObject()
        }
        if let http {
            writer.key("http")
            writer.beginObject()
            writer.key("stream_clients"); writer.integer(http.streamClients)
            writer.key("event_clients"); writer.integer(http.eventClients)
            writer.key("requests"); writer.integer(http.requests)
            writer.key("preview_frames"); writer.integer(http.previewFrames)
            writer.key("preview_frames_skipped"); writer.integer(http.previewFramesSkipped)
            writer.key("slow_clients_disconnected"); writer.integer(http.slowClientsDisconnected)
            writer.endObject()
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
        if let snapshots, snapshots.written + snapshots.failed > 0 {
            line += "; snapshots: \(snapshots.written) written" + (snapshots.failed > 0 ? ", \(snapshots.failed) failed" : "")
        }
        if let output = recordings?.output, output.recordingsFinished + output.recordingsFailed > 0 {
            line += "; recordings: \(output.recordingsFinished) finished"
                + (output.recordingsFailed > 0 ? ", \(output.recordingsFailed) failed" : "")
        }
        return line + " (\(elapsedSeconds.formatted(maxFractionDigits: 2)) s)"
    }
}
