import Foundation
import Testing
@testable import Lookout
import LookoutHTTP

/// The web server's status and page with a camera's masks and zones, built with the library alone.
@Suite("Masks and zones in the web view", .serialized)
struct RegionWebViewTests {
    @Test func theStatusGivesTheRegionsAndThePageDrawsThemOverThePicture() async throws {
        // The sample, paced, fifteen times over (about 30 s): live while the browser starts.
        let clip = temporaryClip(Array([[UInt8]](repeating: try Fixtures.bytes("sample.mjpeg"), count: 15).joined()))
        defer { unlink(clip) }
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: clip, pacing: .realTime, frameRate: 30))
        let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel))
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.qr, .ean13, .face])
        output.regions = try RegionDetectionTests.regions(masks: [RegionDetectionTests.overEAN],
                                                          zones: [("door", RegionDetectionTests.overQR), ("desk", RegionDetectionTests.overFace)])
        let pipeline = DetectionPipeline(session: session, metadataOutput: output,
                                         configuration: DetectionPipeline.Configuration(source: clip, camera: "hall"))
        let server = try WebServer(pipeline: pipeline, configuration: WebServer.Configuration(address: WebServerAddress(port: 0)))
        try await server.start()
        let base = "http://127.0.0.1:\(try #require(server.port))"
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = pipeline.run()
            finished.signal()
        }
        defer {
            pipeline.stop()
            #expect(finished.wait(timeout: .now() + 30) == .success)
        }

        func objects(_ status: [String: Any]) -> [[String: Any]] { status["objects"] as? [[String: Any]] ?? [] }
        var status: [String: Any] = [:]
        #expect(eventually {
            status = (try? httpGet(base + "/api/status").json) ?? [:]
            return objects(status).contains { $0["kind"] as? String == "qr" }
        }, "no code in the status")
        let masks = try #require(status["masks"] as? [[[Double]]])
        #expect(masks == [[[0.6, 0.55], [1, 0.55], [1, 0.95], [0.6, 0.95]]])
        let zones = try #require(status["zones"] as? [[String: Any]])
        #expect(zones.compactMap { $0["name"] as? String } == ["door", "desk"])
        #expect(zones.first?["points"] as? [[Double]] == [[0.4, 0], [0.65, 0], [0.65, 0.5], [0.4, 0.5]])
        // What the status shows obeys them: the code in its zone, the masked EAN-13 nowhere.
        #expect(!objects(status).contains { $0["kind"] as? String == "ean13" })
        #expect(objects(status).first { $0["kind"] as? String == "qr" }?["zone"] as? String == "door")
        // Counted: in the status, and (read later, so at least as many) in the metrics.
        let masked = try #require(status["objects_masked"] as? Int)
        #expect(masked > 0)
        let metrics = try httpGet(base + "/metrics").text.split(separator: "\n")
        let series = try #require(metrics.first { $0.hasPrefix(#"lookout_objects_masked_total{camera="hall"} "#) }, "no masked series")
        #expect((series.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= Double(masked), "\(series)")

        let check = try browserCheck("check-regions.py", [base + "/", "--timeout", "60"])
        #expect(check.status == 0, "\(check.report)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(check.report.utf8)) as? [String: Any])
        let checks = try #require(parsed["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String ?? "mask" } == ["mask", "door", "desk"])
        await server.stop()
    }
}
