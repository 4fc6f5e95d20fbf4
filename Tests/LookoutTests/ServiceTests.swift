import Foundation
import Lookout
import LookoutService
import Testing

/// A service built and run by the library alone, from one configuration value: no process is
/// spawned, nothing of the command line is used.
@Suite struct ServiceTests {
    @Test func threeCamerasEachRunExactlyTheirOwnSettings() async throws {
        let sample = Fixtures.path("sample.mjpeg"), faces = Fixtures.path("events-faces.mjpeg"), codes = Fixtures.path("events-codes.mjpeg")
        // sample.mjpeg: a QR code at x 0.4-0.65 (top half), an EAN-13 at x 0.6-1 (lower half), a face
        // left; events-codes.mjpeg: a QR code at x 0.36-0.62, y 0.29-0.64.
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr, ean13, face]
            events:
              events: frames
            cameras:
              shelf:
                input: \(sample)
                types: [qr, ean13]
                size: 1920x1080
                masks:
                  - [[0.6, 0.55], [1, 0.55], [1, 0.95], [0.6, 0.95]]
                zones:
                  door: "0.4,0 0.65,0 0.65,0.5 0.4,0.5"
              faces:
                input: \(faces)
                types: [face]
                size: 640x480
                face-confirm: 1
                zones:
                  left: [[0, 0], [0.5, 0], [0.5, 1], [0, 1]]
                  right: [[0.5, 0], [1, 0], [1, 1], [0.5, 1]]
              elsewhere:
                input: \(codes)
                types: [qr]
                rect-of-interest: [0, 0, 0.3, 0.25]
            """, file: "three.yml")
        let collector = ServiceCollector()
        let service = try Service(configuration: configuration, environment: Service.Environment(output: collector))
        try await service.start()
        let outcomes = await service.run()
        await service.finish()
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { if case .inputEnded = $0 { true } else { false } })
        // shelf: its QR codes, each in its zone; its EAN-13 masked, counted, never reported.
        let shelf = collector.lines(of: "shelf")
        #expect(shelf.count == 60)
        #expect(shelf.allSatisfy { $0["kind"] as? String == "qr" && $0["zone"] as? String == "door" })
        #expect(service.pipelines.first?.statistics.objectsMasked == 60)
        // faces: faces only, each in the zone of its centre.
        let faceLines = collector.lines(of: "faces")
        #expect(faceLines.count >= 20)
        #expect(faceLines.allSatisfy { line in
            guard line["kind"] as? String == "face", let bounds = line["bounds"] as? [String: Double],
                  let x = bounds["x"], let width = bounds["width"] else { return false }
            return line["zone"] as? String == (x + width / 2 <= 0.5 ? "left" : "right")
        })
        // elsewhere: its region holds no code.
        #expect(collector.lines(of: "elsewhere").isEmpty)
        #expect(service.pipelines.map { $0.statistics.framesRead } == [60, 80, 80])
        #expect(service.pipelines.map(\.configuration.camera) == ["shelf", "faces", "elsewhere"])
    }

    @Test func masksAndZonesFromTheFileApplyToTheirCameraOnly() async throws {
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
        try await service.start()
        _ = await service.run()
        await service.finish()
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
