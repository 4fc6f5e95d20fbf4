import Lookout
import ServiceLifecycle

/// A Lookout service as a swift-service-lifecycle service, for a host that runs its parts in a
/// `ServiceGroup`: `run()` starts the web server, runs every camera until each input ends or the
/// group shuts down gracefully (its signals, or `triggerGracefulShutdown()`), then lets MQTT,
/// hooks and the web server finish. Reloads stay the service's own (`Service.reload(_:)`,
/// `FileReload`), at any time while it runs.
public struct LifecycleService: ServiceLifecycle.Service {
    public let service: Service
    /// Begun by a graceful shutdown, as a stop signal begins it for the command line: the
    /// outputs' waits end with it. Nil leaves each output its own bound.
    public let stopDeadline: StopDeadline?

    public init(_ service: Service, stopDeadline: StopDeadline? = .shared) {
        self.service = service
        self.stopDeadline = stopDeadline
    }

    /// Runs the service to its end; throws how a camera failed, or why the web server could not
    /// start (the service then finished all the same: its MQTT node offline, nothing left open).
    public func run() async throws {
        do {
            try await service.start()
        } catch {
            service.stop()
            await service.finish()
            throw error
        }
        let outcomes = await withGracefulShutdownHandler {
            await service.run()
        } onGracefulShutdown: { [service, stopDeadline] in
            stopDeadline?.begin()
            service.stop()
        }
        await service.finish()
        for case .failed(let error) in outcomes { throw error }
    }
}
