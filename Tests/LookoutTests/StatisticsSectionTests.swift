import Foundation
import Testing
@testable import Lookout
@testable import LookoutHTTP

@Suite("Statistics sections")
struct StatisticsSectionTests {
    static func hooksSection(runs: Int) -> StatisticsSection {
        StatisticsSection(name: "hooks",
                          fields: [StatisticsField("on-code", .object([StatisticsField("runs", .integer(runs)),
                                                                       StatisticsField("timed_out", .integer(0))]))],
                          metrics: [StatisticsMetric("lookout_hook_runs_total", help: "Hook runs started.",
                                                     labels: [(name: "hook", value: "on-code")], .counter(runs))])
    }

    static func snapshot(camera: String, runs: Int, eventClients: Int) -> StatisticsSnapshot {
        var snapshot = StatisticsSnapshot(source: camera + ".mjpeg", camera: camera)
        snapshot.framesRead = 10
        snapshot.sections = [
            StatisticsSection(name: "snapshots",
                              fields: [StatisticsField("written", .integer(4)), StatisticsField("last_error", .string("disk full"))],
                              summary: StatisticsSection.summary("snapshots", 4, "written", failed: 1)),
            hooksSection(runs: runs),
            StatisticsSection(name: "http", fields: [StatisticsField("event_clients", .integer(eventClients))],
                              metrics: [StatisticsMetric("lookout_http_event_clients", help: "Clients on /api/events.",
                                                         .gauge(Double(eventClients)), isShared: true)]),
        ]
        return snapshot
    }

    @Test func eachSectionIsWrittenUnderItsNameInOrder() throws {
        let snapshot = Self.snapshot(camera: "door", runs: 3, eventClients: 2)
        let line = String(decoding: snapshot.jsonLine(), as: UTF8.self)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let snapshots = try #require(parsed["snapshots"] as? [String: Any])
        #expect(snapshots.count == 2 && snapshots["written"] as? Int == 4 && snapshots["last_error"] as? String == "disk full")
        #expect(parsed["hooks"] as? [String: [String: Int]] == ["on-code": ["runs": 3, "timed_out": 0]])
        #expect(parsed["http"] as? [String: Int] == ["event_clients": 2])
        // After the timings, in the order the parts reported, before `elapsed`.
        let positions = ["\"timings\"", "\"snapshots\"", "\"hooks\"", "\"http\"", "\"elapsed\""].map {
            line.range(of: $0).map { line.distance(from: line.startIndex, to: $0.lowerBound) } ?? -1
        }
        #expect(positions.allSatisfy { $0 >= 0 } && positions == positions.sorted(), "\(line)")
        #expect(snapshot.text.contains("; detections: none; snapshots: 4 written, 1 failed ("), "\(snapshot.text)")
        #expect(snapshot.section("hooks")?["on-code"] == .object([StatisticsField("runs", .integer(3)),
                                                                   StatisticsField("timed_out", .integer(0))]))
        #expect(snapshot.section("mqtt") == nil)
        #expect(StatisticsSection.summary("recordings", 0, "finished", failed: 0) == nil)
    }

    @Test func metricsCarryTheCameraAndTheSharedOnesComeOnce() {
        let exporter = MetricsExporter()
        _ = exporter.render([Self.snapshot(camera: "door", runs: 3, eventClients: 2),
                             Self.snapshot(camera: "hall", runs: 1, eventClients: 2)])
        // A later scrape: counters equal the new totals.
        let text = String(decoding: exporter.render([Self.snapshot(camera: "door", runs: 5, eventClients: 1),
                                                     Self.snapshot(camera: "hall", runs: 1, eventClients: 1)]), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"lookout_hook_runs_total{camera="door",hook="on-code"} 5"#), "\(text)")
        #expect(lines.contains(#"lookout_hook_runs_total{camera="hall",hook="on-code"} 1"#), "\(text)")
        #expect(lines.filter { $0.hasPrefix("lookout_http_event_clients") } == ["lookout_http_event_clients 1.0"], "\(text)")
        #expect(lines.contains(#"lookout_frames_read_total{camera="door"} 10"#), "\(text)")
    }
}
