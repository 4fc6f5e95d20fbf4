import Dispatch
import Logging
import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Tells systemd how a running service stands, when it runs it as `Type=notify` (sd_notify(3)):
///
/// - `READY=1` once every camera's input is known: its first frame analysed, or its failure (a
///   camera that cannot be opened or is lost, an input that ended);
/// - `STATUS=` every camera's state on one line ("door: running 30 fps; hall: lost, retrying"),
///   sent when it changes (looked at once a second);
/// - `WATCHDOG=1` every half `WATCHDOG_USEC`, only while every capture loop is alive
///   (`CaptureHeartbeat`): a hung loop stops the pings, and systemd restarts the service;
/// - `RELOADING=1` when a reload begins and `READY=1` when it is applied or refused;
/// - `STOPPING=1` when the service stops.
///
/// Nothing is sent when `$NOTIFY_SOCKET` is unset; nothing runs per frame.
public final class ServiceNotifier: Sendable {
    private struct State {
        var status = ""
        var lastPing: Int64 = 0
        var ready = false
        var stopping = false
        var reportedFailure = false
    }

    private let socket: NotifySocket
    private let service: Service
    private let logger: Logger
    /// How often a watchdog ping is due (half of `WATCHDOG_USEC`), in seconds; nil without one.
    public let watchdogInterval: Double?
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "lookout.notify")
    /// The ticks, made by `start()` and cancelled by `stopping()`.
    private let timer = Locked<(any DispatchSourceTimer)?>(nil)

    /// A notifier for `service` when systemd asked for notifications ($NOTIFY_SOCKET); nil
    /// otherwise, or when the socket cannot be used (said on `logger`).
    public static func fromEnvironment(service: Service, logger: Logger) -> ServiceNotifier? {
        let socket: NotifySocket?
        do throws(NotifySocket.Failure) { socket = try NotifySocket.fromEnvironment() } catch {
            logger.error("\(error); systemd is not told when Lookout is ready")
            return nil
        }
        guard let socket else { return nil }
        return ServiceNotifier(socket: socket, service: service, watchdogMicroseconds: watchdogMicroseconds(), logger: logger)
    }

    /// `$WATCHDOG_USEC` when the watchdog is this process's (`$WATCHDOG_PID` unset or ours).
    static func watchdogMicroseconds() -> Int64? {
        if let pid = getenv("WATCHDOG_PID").map({ String(cString: $0) }), !pid.isEmpty, pid != String(getpid()) { return nil }
        guard let text = getenv("WATCHDOG_USEC").map({ String(cString: $0) }), let value = Int64(text), value > 0 else { return nil }
        return value
    }

    package init(socket: NotifySocket, service: Service, watchdogMicroseconds: Int64?, logger: Logger) {
        self.socket = socket
        self.service = service
        self.logger = logger
        watchdogInterval = watchdogMicroseconds.map { Double($0) / 2e6 }
    }

    /// Starts the pings and the status; says READY=1 once every camera's input is known.
    public func start() {
        let period = min(1, watchdogInterval ?? 1)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: period)
        timer.setEventHandler { [self] in tick(period: period) }
        timer.resume()
        self.timer.withLock { $0 = timer }
        let pipelines = service.pipelines
        // A thread of its own: the wait lasts as long as the slowest camera takes to start.
        DispatchQueue(label: "lookout.notify.ready").async { [self] in
            for pipeline in pipelines { pipeline.waitUntilInputKnown(timeout: .distantFuture) }
            queue.async { [self] in
                let status = CameraStatus.line(service.pipelines)
                let send = state.withLock { state -> Bool in
                    guard !state.stopping else { return false }
                    state.ready = true
                    state.status = status
                    return true
                }
                if send { self.send("READY=1\nSTATUS=\(status)") }
            }
        }
    }

    /// A reload begins (SIGHUP). Said only between the first READY and a stop: a reload during
    /// the start leaves READY to the start (systemd would take it for the service being up), and
    /// one after STOPPING must not make a stopping service look active.
    public func reloading() {
        queue.sync {
            guard state.withLock({ $0.ready && !$0.stopping }) else { return }
            send("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.nanoseconds() / 1000)")
        }
    }

    /// The reload was applied or refused: ready again, with the cameras as they now are (during
    /// the start, only the status; after a stop, nothing).
    public func reloaded() {
        queue.sync {
            let status = CameraStatus.line(service.pipelines)
            let (ready, stopping) = state.withLock { state -> (Bool, Bool) in
                if !state.stopping { state.status = status }
                return (state.ready, state.stopping)
            }
            guard !stopping else { return }
            send(ready ? "READY=1\nSTATUS=\(status)" : "STATUS=\(status)")
        }
    }

    /// The service stops: no more pings or status.
    public func stopping() {
        queue.sync {
            guard !state.withLock({ state in defer { state.stopping = true }; return state.stopping }) else { return }
            timer.withLock { $0?.cancel() }
            send("STOPPING=1\nSTATUS=stopping")
        }
    }

    /// Every `period`: the status when it changed, and the watchdog's ping when due and every
    /// capture loop is alive.
    private func tick(period: Double) {
        let pipelines = service.pipelines
        let now = MonotonicClock.nanoseconds()
        let status = CameraStatus.line(pipelines, now: now)
        let (statusChanged, pingDue) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            let changed = state.ready && status != state.status
            if changed { state.status = status }
            let due = watchdogInterval.map { Double(now - state.lastPing) / 1e9 + period / 2 >= $0 } ?? false
            return (changed, due)
        }
        if statusChanged { send("STATUS=\(status)") }
        guard pingDue else { return }
        let stalled = pipelines.filter { !$0.session.heartbeat.isAlive(at: now) }
        guard stalled.isEmpty else {
            logger.debug("watchdog: not pinging, capture stalled: \(stalled.map(\.configuration.camera).joined(separator: ", "))")
            return
        }
        state.withLock { $0.lastPing = now }
        send("WATCHDOG=1")
    }

    private func send(_ message: String) {
        do throws(NotifySocket.Failure) {
            try socket.send(message)
            logger.trace("sd_notify: \(message.replacing("\n", with: " "))")
        } catch {
            let first = state.withLock { state in defer { state.reportedFailure = true }; return !state.reportedFailure }
            if first { logger.warning("\(error)") } else { logger.debug("\(error)") }
        }
    }
}
