import Foundation
import Logging
import Lookout
import LookoutService
import ServiceLifecycle
import Synchronization
import Testing

/// The whole service in a host's `ServiceGroup` (swift-service-lifecycle), as another program
/// would run it beside its own services.
@Suite("The service in a ServiceGroup")
struct LifecycleServiceTests {
    @Test func aGracefulShutdownStopsTheCamerasAndTheRunEndsFinished() async throws {
        // A FIFO: the camera's input never ends by itself, so only the shutdown can end the run.
        let feeder = try ServiceReloadTests.FrameFeeder()
        defer { try? feeder.close() }
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr]
            cameras:
              door:
                input: \(feeder.path)
            """, file: "lifecycle.yml")
        let collector = ServiceCollector()
        // The camera opens the FIFO as the service is built, and waits for a writer and a first frame.
        feeder.open(writing: 5)
        let service = try Service(configuration: configuration, environment: Service.Environment(output: collector))
        // No deadline of the process's: the other suites' outputs in this process must not be hurried.
        let group = ServiceGroup(configuration: .init(services: [LifecycleService(service, stopDeadline: nil)],
                                                      gracefulShutdownSignals: [], logger: Logger(label: "lifecycle-test")))
        let ended = Atomic<Bool>(false)
        let running = Task {
            try await group.run()
            ended.store(true, ordering: .releasing)
        }
        // Generous: with every suite running, the group's tasks wait for a thread of the pool.
        let read = await eventuallyAwaiting(timeout: 300) { collector.lines(of: "door").count == 5 }
        #expect(read)
        let endedEarly = ended.load(ordering: .acquiring)
        #expect(!endedEarly, "the input is open: the run goes on until the shutdown")
        await group.triggerGracefulShutdown()
        let endedAfterShutdown = await eventuallyAwaiting(timeout: 300) { ended.load(ordering: .acquiring) }
        #expect(endedAfterShutdown)
        guard endedAfterShutdown else { return }
        try await running.value
        // Stopped and finished: a reload is refused from then on.
        #expect(service.pipelines.first?.statistics.framesRead == 5)
        let error = await ZeroCameraTests.serviceError { _ = try await service.reload(configuration) }
        guard case .stopped = error else {
            Issue.record("a reload after the shutdown: \(String(describing: error))")
            return
        }
    }

    @Test func aWebServerThatCannotListenFailsTheRunAndTheServiceIsFinished() async throws {
        let (listener, port) = try WebServerTests.portInUse()
        defer { close(listener) }
        let configuration = try ConfigurationFile.parse("""
            http:
              http: 127.0.0.1:\(port)
            cameras:
              door:
                input: \(Fixtures.path("sample.mjpeg"))
            """, file: "lifecycle.yml")
        let service = try Service(configuration: configuration, environment: Service.Environment(output: ServiceCollector()))
        let group = ServiceGroup(configuration: .init(services: [LifecycleService(service, stopDeadline: nil)],
                                                      gracefulShutdownSignals: [], logger: Logger(label: "lifecycle-test")))
        do {
            try await group.run()
            Issue.record("the run went on with its web server's port in use")
        } catch {
            #expect("\(error)".contains("Address already in use"), "\(error)")
        }
        // Finished, not left half-started: a reload is refused as after any end.
        let error = await ZeroCameraTests.serviceError { _ = try await service.reload(configuration) }
        guard case .stopped = error else {
            Issue.record("a reload after the failed start: \(String(describing: error))")
            return
        }
    }
}
