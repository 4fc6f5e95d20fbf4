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
