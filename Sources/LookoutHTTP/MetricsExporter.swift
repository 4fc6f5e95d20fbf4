import Lookout
import Prometheus

/// `/metrics`: every camera's statistics snapshot in Prometheus text exposition, through
/// swift-prometheus, each camera's series with a `camera` label (the server's own, HTTP, without).
/// Counters move by what changed since the previous scrape, so they equal the snapshot's totals
/// (and the `--stats` line); timings become histograms in seconds.
final class MetricsExporter: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let lock = Locked(Exported())

    /// Stage-time buckets, seconds: from a fast ZBar pass to a slow cascade.
    static let timingBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.1, 0.25, 0.5, 1]

    /// What earlier scrapes already counted, by metric and label.
    private struct Exported {
        var counters: [String: Int] = [:]
        var buckets: [String: [Int64: Int]] = [:]
    }

    /// A series' full name (Lookout's names carry their unit already) and help.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The exposition text for the cameras' snapshots.
    func render(_ snapshots: [StatisticsSnapshot]) -> [UInt8] {
        lock.withLock { exported in
            for snapshot in snapshots { add(snapshot, camera: snapshot.camera ?? "", to: &exported) }
            // The server's own, once: every camera's snapshot carries the same.
            for metric in snapshots.first?.sections.flatMap(\.metrics) ?? [] where metric.isShared {
                export(metric, camera: nil, to: &exported)
            }
            var text: [UInt8] = []
            registry.emit(into: &text)
            return text
        }
    }

    /// Sets a gauge, or moves a counter by what changed since the last scrape; `camera`'s series
    /// carry its label first.
    private func export(_ metric: StatisticsMetric, camera: String?, to exported: inout Exported) {
        let labels = (camera.map { [("camera", $0)] } ?? []) + metric.labels.map { ($0.name, $0.value) }
        let descriptor = Self.descriptor(metric.name, metric.help)
        switch metric.value {
        case .counter(let total):
            let key = metric.name + labels.map { "|\($0.0)=\($0.1)" }.joined()
            let delta = total - exported.counters[key, default: 0]
            let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
            if delta > 0 { counter.increment(by: Int64(delta)) }
            exported.counters[key] = max(total, exported.counters[key, default: 0])
        case .gauge(let value):
            registry.makeGauge(descriptor: descriptor, labels: labels).set(value)
        }
    }

    private func add(_ snapshot: StatisticsSnapshot, camera: String, to exported: inout Exported) {
        let cameraLabel = ("camera", camera)
        func count(_ name: String, _ help: String, _ labels: [(name: String, value: String)] = [], _ total: Int) {
            export(StatisticsMetric(name, help: help, labels: labels, .counter(total)), camera: camera, to: &exported)
        }
        func gauge(_ name: String, _ help: String, _ value: Double) {
            export(StatisticsMetric(name, help: help, .gauge(value)), camera: camera, to: &exported)
        }

        count("lookout_frames_read_total", "Frames the input produced, damaged ones included.", [], snapshot.framesRead)
        count("lookout_frames_analysed_total", "Frames analysed for codes.", [], snapshot.framesAnalysed)
        count("lookout_face_analyses_total", "Frames analysed for faces.", [], snapshot.faceAnalyses)
        for reason in DropReason.allCases {
            count("lookout_frames_dropped_total", "Frames not analysed, by reason.", [("reason", reason.rawValue)],
                  snapshot.drops[reason])
        }
        for type in MetadataObjectType.allCodeTypes + [.face] where snapshot.detections[type] != nil || type == .qr || type == .ean13 || type == .face {
            count("lookout_detections_total", "Objects found, by type (one per object per analysed frame).",
                  [("type", type.rawValue)], snapshot.detections[type] ?? 0)
        }
        count("lookout_objects_masked_total", "Objects found whose centre lay in a mask, never reported.", [], snapshot.objectsMasked)
        for kind in ["code", "face_enter", "face_leave", "presence"] {
            count("lookout_events_total", "Events decided, by kind.", [("kind", kind)], snapshot.events[kind] ?? 0)
        }
        gauge("lookout_camera_up", "1 while frames arrive or may (streaming, starting, a file read), 0 while the camera is lost or the run stopped.",
              snapshot.input.isHealthy ? 1 : 0)
        gauge("lookout_presence", "1 while presence is on.", snapshot.isPresent ? 1 : 0)
        gauge("lookout_input_fps", "Frames read per second, measured over the last seconds.", snapshot.measuredFrameRate)
        // Each part's own series (MQTT, hooks, snapshots, viewers).
        for metric in snapshot.sections.flatMap(\.metrics) where !metric.isShared {
            export(metric, camera: camera, to: &exported)
        }
        for timing in snapshot.timings {
            let key = camera + "|" + timing.name
            let histogram = registry.makeValueHistogram(
                descriptor: Self.descriptor("lookout_stage_seconds",
                                            "Time per frame of each stage: decode, codes (ZBar), faces (cascade, per analysis), code_latency (frame received to line written)."),
                labels: [cameraLabel, ("stage", timing.name)], buckets: Self.timingBuckets)
            var seen = exported.buckets[key, default: [:]]
            timing.histogram.forEachBucket { lower, total in
                let delta = total - seen[lower, default: 0]
                guard delta > 0 else { return }
                // Samples are known to a bucket of TimingHistogram: record each at its middle.
                let value = (Double(lower) + Double(TimingHistogram.resolutionNanoseconds) / 2) / 1e9
                for _ in 0..<delta { histogram.record(value) }
                seen[lower] = total
            }
            exported.buckets[key] = seen
        }
    }
}
