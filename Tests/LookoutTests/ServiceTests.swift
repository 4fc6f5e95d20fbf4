import Foundation
import Lookout
import LookoutService
import Testing

/// A service built and run by the library alone, from one configuration value: no process is
/// spawned, nothing of the command line is used.
@Suite struct ServiceTests {
    @Test func threeCamerasEachRunExactlyTheirOwnSettings() throws {
        let codes = Fixtures.path("events-codes.mjpeg"), faces = Fixtures.path("events-faces.mjpeg")
        // The code in events-codes.mjpeg is at x 0.36-0.62, y 0.29-0.64.
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr, ean13, face]
            cameras:
              codes:
                input: \(codes)
                types: [qr]
              faces:
                input: \(faces)
                types: [face]
                face-confirm: 1
              elsewhere:
                input: \(codes)
                types: [qr]
                rect-of-interest: [0, 0, 0.3, 0.25]
            """, file: "three.yml")
        let collector = ServiceCollector()
        let service = try Service(configuration: configuration, environment: Service.Environment(output: collector))
        try service.start()
        let outcomes = service.run()
        service.finish()
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { if case .inputEnded = $0 { true } else { false } })
        #expect(collector.kinds(of: "codes") == ["qr"])
        #expect(collector.lines(of: "codes").count == 35)
        #expect(collector.kinds(of: "faces") == ["face"])
        #expect(collector.lines(of: "faces").count >= 20)
        #expect(collector.lines(of: "elsewhere").isEmpty)
        // Every camera read its whole file.
        let read = service.pipelines.map { $0.statistics.framesRead }
        #expect(read == [80, 80, 80])
        #expect(service.pipelines.map(\.configuration.camera) == ["codes", "faces", "elsewhere"])
    }

    @Test func masksAndZonesFromTheFileApplyToTheirCameraOnly() throws {
        let sample = Fixtures.path("sample.mjpeg")
        // sample.mjpeg: a QR code at x 0.4-0.65 (top half), an EAN-13 at x 0.6-1 (lower half), a face left.
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr, ean13]
            cameras:
              shelf:
                input: \(sample)
                masks:
                  - [[0.6, 0.55], [1, 0.55], [1, 0.95], [0.6, 0.95]]
                zones:
                  door: "0.4,0 0.65,0 0.65,0.5 0.4,0.5"
              plain:
                input: \(sample)
                size: 640x480
            """, file: "regions.yml")
        let collector = ServiceCollector()
        let service = try Service(configuration: configuration, environment: Service.Environment(output: collector))
        try service.start()
        _ = service.run()
        service.finish()
        let shelf = collector.lines(of: "shelf"), plain = collector.lines(of: "plain")
        #expect(shelf.count == 60)
        #expect(shelf.allSatisfy { $0["kind"] as? String == "qr" && $0["zone"] as? String == "door" })
        #expect(plain.filter { $0["kind"] as? String == "ean13" }.count == 60)
        #expect(plain.filter { $0["kind"] as? String == "qr" }.count == 60)
        #expect(plain.allSatisfy { $0["zone"] == nil })
        #expect(service.pipelines.first?.statistics.objectsMasked == 60)
    }

    @Test func aServiceWithAnUnopenableInputIsNotBuilt() throws {
        let configuration = LookoutConfiguration(cameras: [CameraConfiguration(name: "gone", input: "/nonexistent/clip.mjpeg")])
        do {
            _ = try Service(configuration: configuration, environment: Service.Environment())
            Issue.record("a service was built with a missing input")
        } catch {
            #expect(error.description.contains("/nonexistent/clip.mjpeg"))
            #expect(error.kind == .failure || error.kind == .noInput)
        }
    }
}
