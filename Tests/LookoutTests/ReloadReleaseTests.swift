import Foundation
import Lookout
import LookoutService
import Testing

/// A camera a reload removes or restarts lets go of everything it held.
@Suite struct ReloadReleaseTests {
    final class Weak<T: AnyObject> { weak var value: T?; init(_ value: T?) { self.value = value } }

    @Test func aRestartedCameraIsReleased() async throws {
        let first = try ServiceReloadTests.FrameFeeder(), second = try ServiceReloadTests.FrameFeeder(), third = try ServiceReloadTests.FrameFeeder()
        defer { try? first.close(); try? second.close(); try? third.close() }
        func configuration(_ feeder: ServiceReloadTests.FrameFeeder) throws -> LookoutConfiguration {
            try ConfigurationFile.parse("""
                detection:
                  types: [qr, ean13, face, datamatrix]
                cameras:
                  b:
                    input: \(feeder.path)
                """, file: "release.yml")
        }
        let collector = ServiceCollector()
        first.open(writing: 5)
        let service = try Service(configuration: try configuration(first), environment: Service.Environment(output: collector))
        try await service.start()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = service.run()
            finished.signal()
        }
        #expect(eventually { collector.lines(of: "b").count >= 5 })
        second.open(writing: 5)
        _ = try await service.reload(try configuration(second))
        #expect(eventually { collector.lines(of: "b").count >= 10 })
        let (pipeline, session, metadata, input) = try { () throws -> (Weak<DetectionPipeline>, Weak<CaptureSession>, Weak<MetadataOutput>, Weak<CaptureInput>) in
            let old = try #require(service.pipelines.first)
            return (Weak(old), Weak(old.session), Weak(old.metadataOutput), Weak(old.session.inputs.first))
        }()
        third.open(writing: 5)
        _ = try await service.reload(try configuration(third))
        #expect(eventually(timeout: 10) { pipeline.value == nil }, "pipeline")
        #expect(eventually(timeout: 10) { session.value == nil }, "session")
        #expect(eventually(timeout: 10) { metadata.value == nil }, "metadata")
        #expect(eventually(timeout: 10) { input.value == nil }, "input")
        service.stop()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        await service.finish()
    }
}
