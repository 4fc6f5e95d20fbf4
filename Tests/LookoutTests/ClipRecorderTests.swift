import Dispatch
import Foundation
import Testing
@testable import Lookout

/// Keeps the events every pipeline output carries, and its lines.
final class EventCollector: EventSink, @unchecked Sendable {
    let events = Locked<[DetectionEvent]>([])
    let lines = Locked<[String]>([])
    func consume(_ output: PipelineOutput) {
        events.withLock { $0 += output.events.map(\.event) }
        lines.withLock { $0 += output.lines.map { String(decoding: $0, as: UTF8.self) } }
    }
}

@Suite("Clip recorder wired by its builder", .serialized)
struct ClipRecorderTests {
    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "lookout-clips-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aRecorderJoinsNoSessionByItself() throws {
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = ClipRecorder(directory: Folder(path: directory), diagnostics: { _ in })
        #expect(recorder.output.session == nil)
        #expect(recorder.output.connection == nil)
        #expect(recorder.onEvent == nil)
        recorder.finish()
    }

    /// The builder's wiring: the output in the session, the recorder a sink; the pipeline takes
    /// its events in (an event source), and every sink (here a collector) gets the `recording` line.
    @Test func aFinishedClipReachesTheHandlerTheBuilderSet() throws {
        let directory = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (session, metadata) = try Fixtures.metadataOutput(types: [.qr])
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let pipeline = DetectionPipeline(session: session, metadataOutput: metadata,
                                         configuration: DetectionPipeline.Configuration(source: "sample.mjpeg"))
        var settings = ClipRecorder.Settings()
        settings.trigger = .always
        let recorder = ClipRecorder(directory: Folder(path: directory), settings: settings, diagnostics: { _ in })
        try session.addOutput(recorder.output)
        pipeline.addSink(recorder)
        #expect(recorder.onEvent != nil, "the pipeline takes the recorder's events in")
        let collector = EventCollector()
        pipeline.addSink(collector)

        guard case .inputEnded = pipeline.run() else {
            Issue.record("the run did not end with its input")
            return
        }
        pipeline.finishSinks()
        let events = collector.events.withLock { $0 }
        let reports = events.compactMap { event -> RecordingReport? in
            if case .recording(let report) = event { return report }
            return nil
        }
        try #require(reports.count == 1, "\(events)")
        #expect(reports[0].movie.frameCount == 60)
        #expect(FileManager.default.fileExists(atPath: directory + "/" + reports[0].file))
        #expect(collector.lines.withLock { $0 }.filter { $0.contains(#""kind":"recording""#) }.count == 1)
        let section = try #require(pipeline.statistics.section("recordings"))
        #expect(section["finished"] == .integer(1))
        #expect(section["recording"] == .bool(false))
    }
}
