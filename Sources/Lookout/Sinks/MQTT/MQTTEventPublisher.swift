import Dispatch
import Logging

/// Publishes events and state to an MQTT broker the way Frigate and Home Assistant expect, on one
/// connection of its own (a camera's, or a node's; see `MQTTNode`). Under its prefix:
///
/// - `available`: retained "online" (for a camera: while frames flow), sent again when Home
///   Assistant says it is back online (`HomeAssistantStatus`), and a retained last will "offline";
/// - a camera's `presence`: retained "ON"/"OFF"; `code`: the last code's text, retained;
/// - a camera's `zone/<zone>/presence`: retained "ON"/"OFF", for each zone;
/// - a camera's `events`: every event as JSON, QoS 1, not retained;
/// - a camera's `scan`: each code read, its value, QoS 1, not retained;
/// - a camera's Home Assistant discovery configs, retained, when asked for: at start (before a
///   first event), after every reconnect, and again whenever Home Assistant says on its status
///   topic that it is back online (it forgets what it did not keep while restarting).
///
/// Publishing never blocks the caller. While the broker is away, events wait in the camera's
/// outbox on disk (`configuration.outbox`, an `OutboxJournal`: kept across restarts until the
/// broker acknowledges them), or without one in a bounded queue in memory (oldest dropped and
/// counted), and go out in order on reconnect, after availability and the retained state are
/// published again. Event lines go out as they are given: with the pipeline's id
/// (`EventNumbering`) as their first key. Every message is QoS 1.
public final class MQTTEventPublisher: Sendable {
    public let configuration: MQTTConfiguration
    public let topics: MQTTTopics
    private let connection: MQTTConnection
    /// Every change of `state` happens on this queue, in order (`MQTTPublisherState`).
    private let queue: DispatchQueue
    private let state: Locked<MQTTPublisherState>
    /// The state directory's outbox, locked before this connection is made (nil without an outbox).
    private let outboxDirectory: OutboxDirectory?
    /// Signalled by the state when a stop waits for everything to be delivered.
    private let idle = DispatchSemaphore(value: 0)

    public convenience init(configuration: MQTTConfiguration, diagnostics: @escaping @Sendable (String) -> Void) throws(MQTTError) {
        try self.init(configuration: configuration, logger: DiagnosticsLogHandler.logger("lookout.mqtt", diagnostics))
    }

    /// Connection lost, refused and events dropped are warnings; reconnected is a notice.
    public init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
        self.configuration = configuration
        self.topics = configuration.topics
        let queue = DispatchQueue(label: "lookout.mqtt-publisher")
        self.queue = queue
        let (outboxDirectory, outbox) = try MQTTEventOutbox.open(for: configuration, logger: logger)
        self.outboxDirectory = outboxDirectory
        let homeAssistant = configuration.homeAssistantDiscoveryPrefix.map {
            HomeAssistantStatus(discoveryPrefix: $0, speaks: configuration.nodeAvailabilityTopic == nil)
        }
        let relay = Relay()
        let connection = try MQTTConnection(configuration: configuration, subscriptions: homeAssistant.map { [$0.topic] } ?? []) {
            event in relay.publisher?.receive(event)
        }
        self.connection = connection
        state = Locked(MQTTPublisherState(configuration: configuration, connection: connection, outbox: outbox,
                                          homeAssistant: homeAssistant, idle: idle, logger: logger) { seconds, work in
            queue.asyncAfter(deadline: .fromNow(seconds: seconds)) { relay.publisher?.state.withLock(work) }
        })
        relay.set(self)
    }

    /// Lets the connection reach the publisher without keeping it alive (set once, after the
    /// connection is made, before it can call).
    private final class Relay: Sendable {
        private struct Reference { weak var publisher: MQTTEventPublisher? }
        private let reference = Locked(Reference())
        var publisher: MQTTEventPublisher? { reference.withLock { $0.publisher } }
        func set(_ publisher: MQTTEventPublisher) { reference.withLock { $0.publisher = publisher } }
    }

    private func receive(_ event: MQTTConnection.Event) {
        onQueue { $0.handle(event) }
    }

    /// Starts connecting in the background; events published before the connection is up wait.
    public func start() {
        connection.start()
    }

    /// Queues an event: its JSON line (without the newline is fine) goes to `<prefix>/events`, and
    /// presence and codes update their retained state topics.
    public func publish(_ event: DetectionEvent, line: [UInt8]) {
        let payload = line.last == 0x0A ? Array(line.dropLast()) : line
        onQueue { $0.publish(event, payload: payload) }
    }

    /// Publishes an event snapshot (binary JPEG) to `<prefix>/snapshot`, retained. Only the newest
    /// waits while the broker is away, so snapshots never pile up in memory.
    public func publishSnapshot(_ jpeg: [UInt8]) {
        onQueue { $0.publishSnapshot(jpeg) }
    }

    /// Removes the camera's Home Assistant entities (empty retained discovery configs), for a
    /// camera a reload removed: Home Assistant then forgets it instead of showing it unavailable.
    public func withdrawDiscovery() {
        onQueue { $0.withdrawDiscovery() }
    }

    /// Says whether the camera's frames flow (retained `available`), now and after reconnects.
    public func setAvailable(_ isAvailable: Bool) {
        onQueue { $0.setAvailable(isAvailable) }
    }

    public var statistics: Statistics {
        onQueueAndWait { $0.statistics }
    }

    /// Seconds a stop gives a camera's connection in all (delivery, "offline", disconnect) when no
    /// stop signal hurries it (the end of the input, a camera a reload removed), and then its
    /// node's: the cameras stop side by side and the node after them, so MQTT's end takes 3 s at
    /// most however the broker behaves (silent, closing, answering nonsense, never acknowledging).
    public static let cameraStopBound = 2.5
    public static let nodeStopBound = 0.5

    /// Delivers what is queued, publishes "offline" and disconnects, all within `deadline` and
    /// `cameraStopBound` (a camera's connection) or `nodeStopBound`. Returns what was not
    /// delivered, or nil when all was.
    @discardableResult
    public func stop(deadline: StopDeadline = .shared) -> Undelivered? {
        let start = MonotonicClock.nanoseconds()
        let bound = deadline.remaining(atMost: configuration.camera == nil ? Self.nodeStopBound : Self.cameraStopBound)
        /// Seconds left of the bound, less `reserve`.
        func left(keeping reserve: Double) -> Double {
            bound - Double(MonotonicClock.nanoseconds() - start) / 1e9 - reserve
        }
        // 0.4 s is kept for "offline" and the disconnect, 0.2 s of it for the disconnect.
        waitUntilIdle(timeout: left(keeping: 0.4))
        onQueueAndWait { $0.sendOffline() }
        waitUntilIdle(timeout: left(keeping: 0.2))
        let waited = min(bound, Double(MonotonicClock.nanoseconds() - start) / 1e9)
        let undelivered = onQueueAndWait { $0.undeliveredNow(waited: waited) }
        connection.stop(timeout: max(0, left(keeping: 0)))
        onQueueAndWait {
            $0.finishLog()
            $0.closeOutbox()
        }
        return undelivered
    }

    private func waitUntilIdle(timeout: Double) {
        let deadline = DispatchTime.fromNow(seconds: timeout)
        while true {
            let done = onQueueAndWait { $0.checkIdle() }
            if done || idle.wait(timeout: deadline) == .timedOut { return }
        }
    }

    /// `work` on the queue, with the state, after what was asked before it.
    private func onQueue(_ work: @escaping @Sendable (inout MQTTPublisherState) -> Void) {
        queue.async { [state] in state.withLock(work) }
    }

    /// `work` on the queue, with the state, once what was asked before it is done; its result.
    private func onQueueAndWait<Result>(_ work: (inout MQTTPublisherState) -> Result) -> Result {
        queue.sync { state.withLock(work) }
    }
}
