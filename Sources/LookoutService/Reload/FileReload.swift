import Logging

/// Reloading a service from its configuration file, as SIGHUP does: the file read and checked
/// again, the service moved to it, and one line said; a file with problems changes nothing. Any
/// host of the library reloads as the command line does.
public struct FileReload: Sendable {
    /// What a reload did.
    public enum Outcome: Sendable {
        /// Applied: what started, restarted, stopped and stayed.
        case applied(Service.ReloadReport)
        /// The file has problems, or leaves no camera: nothing changed.
        case refused
        /// The service could not apply all of it (a camera that cannot open).
        case failed(ServiceError)
    }

    /// The configuration file.
    public let path: String
    /// Cameras given apart from the file (the command line's inputs), kept over the file's; nil
    /// takes the file's.
    public let cameras: [CameraConfiguration]?
    /// Told that a reload begins and ends (systemd's RELOADING=1, then READY=1).
    public let notifier: ServiceNotifier?
    /// Where the one line goes: a notice when applied, an error when refused or failed.
    public let logger: Logger

    public init(path: String, cameras: [CameraConfiguration]? = nil, notifier: ServiceNotifier? = nil, logger: Logger) {
        self.path = path
        self.cameras = cameras
        self.notifier = notifier
        self.logger = logger
    }

    /// Reloads `service` from the file. `willApply` sees the file's configuration before the
    /// service moves to it (the host's own settings, such as its log level, change first).
    @discardableResult
    public func run(_ service: Service, willApply: (LookoutConfiguration) -> Void = { _ in }) async -> Outcome {
        notifier?.reloading()
        defer { notifier?.reloaded() }
        var configuration: LookoutConfiguration
        do throws(ConfigurationProblems) {
            configuration = try ConfigurationFile.load(path: path)
        } catch {
            service.countFailedReload()
            let count = error.problems.count
            let more = count > 1 ? " (and \(count - 1) more problem\(count > 2 ? "s" : ""); `lookout config check \(path)` lists them)" : ""
            logger.error("reload refused, nothing changed: \(error.problems.first?.description ?? "")\(more)")
            return .refused
        }
        if let cameras { configuration.cameras = cameras }
        willApply(configuration)
        do throws(ServiceError) {
            let report = try await service.reload(configuration)
            let changes: [(String, [String])] = [("started", report.started), ("restarted", report.restarted),
                                                 ("stopped", report.stopped), ("unchanged", report.unchanged)]
            let said = changes.filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1.joined(separator: ", "))" }.joined(separator: "; ")
            logger.notice("reloaded \(path): \(said)")
            return .applied(report)
        } catch .noCameraToReloadTo {
            logger.error("reload refused, nothing changed: \(ServiceError.noCameraToReloadTo)")
            return .refused
        } catch {
            logger.error("reload of \(path) failed: \(error)")
            return .failed(error)
        }
    }
}
