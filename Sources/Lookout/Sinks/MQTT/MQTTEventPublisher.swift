import Dispatch
import Logging
import Synchronization

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
// @unchecked: every mutable field is its serial queue's (see the note above `queue`).
public final class MQTTEventPublisher: @unchecked Sendable {
    public let configuration: MQTTConfiguration
    public let topics: MQTTTopics
    private let discovery: HomeAssistantDiscovery?
    /// Queue-only: the discovery configs were withdrawn (`withdrawDiscovery()`).
    private var discoveryWithdrawn = false
    private let logger: Logger
    private var connection: MQTTConnection!

    /// All state below is touched on `queue` only; every libmosquitto publish happens there, so
    /// messages leave in the order they were made.
    private let queue = DispatchQueue(label: "lookout.mqtt-publisher")
    private var events: BoundedQueue<MQTTMessage>
    /// The camera's events on disk until acknowledged; nil without an outbox (then `events`).
    private var outbox: MQTTEventOutbox?
    /// The state directory's outbox, locked before this connection is made (nil without an outbox).
    private var outboxDirectory: OutboxDirectory?
    /// Each code's value for `scan` (Home Assistant's trigger), bounded like the events, sent after
    /// them: the events' queue, its bound and its report stay about events.
    private var scans: BoundedQueue<MQTTMessage>
    /// The retained state, sent again after every reconnect, and what of it waits to be sent.
    private var state = MQTTRetainedState()
    private var connected = false
    /// The broker of the connection up, or of the last one (an index into `configuration.brokers`).
    private var brokerInUse: Int
    /// What `available` says while connected: a camera is offline while its input is lost.
    private var available = true
    private var everConnected = false
    /// True until the first connection attempt has succeeded or failed: a run shorter than a TLS
    /// handshake must still wait for it at the end, rather than take "not connected" for
    /// "unreachable".
    private var firstAttemptPending = true
    /// The last failure to connect.
    private var lastFailure: String?
    /// What is said about the connection and Home Assistant's restarts, once per change.
    private lazy var log: MQTTConnectionLog = MQTTConnectionLog(logger: logger, brokers: configuration.brokers) { [weak self] end, seconds in
        self?.queue.asyncAfter(deadline: .fromNow(seconds: seconds)) { [weak self] in self?.log.summaryTimerFired(end: end) }
    }
    /// Home Assistant's status topic, followed with discovery on (the node's connection too).
    private var homeAssistant: HomeAssistantStatus?
    /// Why the last connection was lost, until the next is made.
    private var lastLoss: String?
    private var unacknowledged = 0
    private var acknowledged = 0
    private var dropWarning = DropWarning(every: 1000)
    private let idle = DispatchSemaphore(value: 0)
    private var waitingForIdle = false
    /// Messages handed to libmosquitto and not yet acknowledged, at most: bounds its own queue.
    private let window = 64

    public convenience init(configuration: MQTTConfiguration, diagnostics: @escaping @Sendable (String) -> Void) throws(MQTTError) {
        try self.init(configuration: configuration, logger: DiagnosticsLogHandler.logger("lookout.mqtt", diagnostics))
    }

    /// Connection lost, refused and events dropped are warnings; reconnected is a notice.
    public init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
        self.configuration = configuration
        self.topics = configuration.topics
        self.brokerInUse = configuration.startingBroker
        self.discovery = configuration.camera == nil ? nil : configuration.homeAssistantDiscoveryPrefix.map {
            HomeAssistantDiscovery(discoveryPrefix: $0, configuration: configuration)
        }
        self.logger = logger
        self.events = BoundedQueue(capacity: max(1, configuration.queueCapacity))
        (outboxDirectory, outbox) = try MQTTEventOutbox.open(for: configuration, logger: logger)
        self.scans = BoundedQueue(capacity: max(1, configuration.queueCapacity))
        if configuration.camera != nil {
            state = MQTTRetainedState(latest: [(topics.presence, Array("OFF".utf8))]
                + configuration.zones.map { (topics.presence(inZone: $0), Array("OFF".utf8)) })
        }
        let relay = Relay()
        homeAssistant = configuration.homeAssistantDiscoveryPrefix.map {
            HomeAssistantStatus(discoveryPrefix: $0, speaks: configuration.nodeAvailabilityTopic == nil)
        }
        connection = try MQTTConnection(configuration: configuration, subscriptions: homeAssistant.map { [$0.topic] } ?? []) {
            event in relay.publisher?.receive(event)
        }
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
        queue.async { [self] in handle(event) }
    }

    /// Starts connecting in the background; events published before the connection is up wait.
    public func start() {
        connection.start()
    }

    /// Queues an event: its JSON line (without the newline is fine) goes to `<prefix>/events`, and
    /// presence and codes update their retained state topics.
    public func publish(_ event: DetectionEvent, line: [UInt8]) {
        let payload = line.last == 0x0A ? Array(line.dropLast()) : line
        queue.async { [self] in
            switch event {
            case .presence(let change):
                state.set(change.zone.map(topics.presence(inZone:)) ?? topics.presence,
                         Array((change.isPresent ? "ON" : "OFF").utf8))
            case .code(let code):
                state.set(topics.lastCode, Array(code.stringValue.utf8))
            default:
                break
            }
            appendEvent(payload)
            if case .code(let code) = event {
                scans.append(MQTTMessage(topic: topics.codeScanned, payload: Array(code.stringValue.utf8), retain: false))
            }
            drain()
        }
    }

    /// Publishes an event snapshot (binary JPEG) to `<prefix>/snapshot`, retained. Only the newest
    /// waits while the broker is away, so snapshots never pile up in memory.
    public func publishSnapshot(_ jpeg: [UInt8]) {
        queue.async { [self] in
            state.set(topics.snapshot, jpeg)
            drain()
        }
    }

    /// Removes the camera's Home Assistant entities (empty retained discovery configs), for a
    /// camera a reload removed: Home Assistant then forgets it instead of showing it unavailable.
    public func withdrawDiscovery() {
        queue.async { [self] in
            guard let discovery, !discoveryWithdrawn else { return }
            discoveryWithdrawn = true
            for config in discovery.messages { state.set(config.topic, []) }
            drain()
        }
    }

    /// Says whether the camera's frames flow (retained `available`), now and after reconnects.
    public func setAvailable(_ isAvailable: Bool) {
        queue.async { [self] in
            guard available != isAvailable else { return }
            available = isAvailable
            guard connected else { return } // sent first on connecting
            state.replace(MQTTMessage(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true))
            drain()
        }
    }

    private var availabilityPayload: String { available ? MQTTTopics.online : MQTTTopics.offline }

    public var statistics: Statistics {
        queue.sync {
            Statistics(acknowledged: acknowledged, dropped: events.dropped + scans.dropped + (outbox?.journal.dropped ?? 0),
                       pending: events.count + outboxWaiting + scans.count + state.count + unacknowledged, connected: connected,
                       broker: connected ? configuration.brokers[brokerInUse].redacted : nil,
                       outboxPending: outbox?.journal.pendingCount ?? 0, outboxBytes: outbox?.journal.bytes ?? 0,
                       outboxDropped: outbox?.journal.dropped ?? 0)
        }
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
        queue.sync { [self] in
            if connected { send(MQTTMessage(topic: topics.availability, payload: Array(MQTTTopics.offline.utf8), retain: true)) }
        }
        waitUntilIdle(timeout: left(keeping: 0.2))
        let waited = min(bound, Double(MonotonicClock.nanoseconds() - start) / 1e9)
        let undelivered = queue.sync { undeliveredNow(waited: waited) }
        connection.stop(timeout: max(0, left(keeping: 0)))
        queue.sync { log.finish() }
        // What is not done stays on disk for the next start; the lock goes with the files.
        queue.sync {
            outbox?.journal.close()
            outbox = nil
        }
        return undelivered
    }

    private func waitUntilIdle(timeout: Double) {
        let deadline = DispatchTime.fromNow(seconds: timeout)
        while true {
            let done = queue.sync { () -> Bool in
                let isIdle = isIdleQueueOnly
                waitingForIdle = !isIdle
                return isIdle
            }
            if done || idle.wait(timeout: deadline) == .timedOut { return }
        }
    }

    // MARK: Queue-only

    /// What is not delivered now, after a stop waited `waited` seconds for it.
    private func undeliveredNow(waited: Double) -> Undelivered? {
        // A connection never made would have sent availability, discovery and state first.
        let firstMessages = 1 + (discovery?.messages.count ?? 0) + state.latest.count
        let messages = events.count + outboxWaiting + scans.count + (everConnected ? state.count + unacknowledged : firstMessages)
        guard messages > 0 else { return nil }
        let cause = Undelivered.cause(connected: connected, waitingForBroker: connection.secondsWaitingForBroker,
                                      lastFailure: lastFailure, lastLoss: lastLoss, waited: waited)
        return Undelivered(messages: messages, cause: cause, kept: outbox?.journal.pendingCount ?? 0)
    }

    private func handle(_ event: MQTTConnection.Event) {
        switch event {
        case .connected(let broker):
            connected = true
            firstAttemptPending = false
            let queued = events.count + outboxWaiting
            log.connected(broker: broker, failedOver: broker != brokerInUse, everConnected: everConnected, queued: queued)
            brokerInUse = broker
            everConnected = true
            lastFailure = nil
            lastLoss = nil
            homeAssistant?.connected()
            sendEverythingRetained()
        case .stable(let broker):
            log.stable(broker: broker, queued: events.count + outboxWaiting)
        case .message(let topic, let payload, let retained):
            guard homeAssistant?.isRestart(topic: topic, payload: payload, retained: retained) == true, !discoveryWithdrawn else { break }
            if homeAssistant?.speaks == true { log.homeAssistantOnline() }
            if homeAssistant?.restarted(stateWaiting: !state.isEmpty) == true { sendEverythingRetained() }
        case .connectFailed(let broker, let reason):
            connected = false
            firstAttemptPending = false
            lastFailure = reason
            log.connectFailed(broker: broker, reason: reason)
            signalIdleIfWaiting()
        case .disconnected(let broker, let reason, let stayedUp):
            connected = false
            firstAttemptPending = false
            lastFailure = nil
            lastLoss = reason
            log.disconnected(broker: broker, reason: reason, stayedUp: stayedUp)
            signalIdleIfWaiting()
        case .acknowledged(let messageID):
            unacknowledged = max(0, unacknowledged - 1)
            acknowledged += 1
            if homeAssistant?.acknowledged(messageID, stateWaiting: !state.isEmpty) == true { sendEverythingRetained() }
            if outbox?.acknowledged(messageID) == true { scheduleSync() }
            drain()
        }
    }

    /// Availability first, then discovery and state, then the waiting events: what a broker or
    /// Home Assistant that forgot needs, replacing any state not sent yet (the newest is kept).
    private func sendEverythingRetained() {
        var first = [MQTTMessage(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true)]
        for config in discovery?.messages ?? [] where !discoveryWithdrawn {
            first.append(MQTTMessage(topic: config.topic, payload: config.payload, retain: true))
        }
        state.sendAll(after: first)
        drain()
    }

    private func drain() {
        if connected { outbox?.using { journal throws(OutboxError) in try journal.dropExpired() } }
        while connected && unacknowledged < window {
            let message: MQTTMessage
            var isState = false
            if let first = state.popFirst() {
                message = first
                isState = true
            } else if let event = outbox?.nextToHandOver() {
                guard let messageID = send(MQTTMessage(topic: event.topic, payload: event.payload, retain: false)) else { break }
                outbox?.handedOver(event, as: messageID)
                continue
            } else if let event = events.popFirst() {
                message = event
            } else if let scan = scans.popFirst() {
                message = scan
            } else {
                break
            }
            guard let messageID = send(message) else {
                if message.topic == topics.events {
                    events.prepend(message)
                } else if message.topic == topics.codeScanned {
                    scans.prepend(message)
                } else {
                    state.putBack(message)
                }
                break
            }
            if isState { homeAssistant?.handedOver(messageID) }
        }
        signalIdleIfWaiting()
    }

    /// Hands `message` to libmosquitto; its message ID, or nil when there is no connection.
    @discardableResult
    private func send(_ message: MQTTMessage) -> Int32? {
        guard let messageID = connection.publish(topic: message.topic, payload: message.payload, retain: message.retain) else {
            return nil
        }
        unacknowledged += 1
        return messageID
    }

    /// Nothing left to deliver, or no broker to deliver it to (the first attempt has been made).
    private var isIdleQueueOnly: Bool {
        connected ? events.isEmpty && outboxWaiting == 0 && scans.isEmpty && state.isEmpty && unacknowledged == 0 : !firstAttemptPending
    }

    private func signalIdleIfWaiting() {
        guard waitingForIdle else { return }
        if isIdleQueueOnly {
            waitingForIdle = false
            idle.signal()
        }
    }

    /// Outbox events not handed to libmosquitto yet.
    private var outboxWaiting: Int { outbox?.waiting ?? 0 }

    /// Keeps the event line (its id given by the pipeline, `EventNumbering`): in the outbox, or in
    /// memory without one (or when the outbox cannot be written: a disk error loses the event at a
    /// restart, not now).
    private func appendEvent(_ line: [UInt8]) {
        if let outbox {
            if outbox.append(topic: topics.events, payload: line) {
                scheduleSync()
                return
            }
            outbox.keptInMemory()
        }
        if events.append(MQTTMessage(topic: topics.events, payload: line, retain: false)) {
            reportDrops()
        }
    }

    /// Runs the outbox's fsync(2) when it asks for one.
    private func scheduleSync() {
        guard let delay = outbox?.syncToSchedule() else { return }
        queue.asyncAfter(deadline: .fromNow(seconds: delay)) { [weak self] in self?.outbox?.sync() }
    }

    /// One warning when drops start, then one per thousand, so a long outage cannot flood stderr.
    private func reportDrops() {
        let dropped = events.dropped
        if dropWarning.shouldSay(dropped) {
            logger.warning("MQTT: event queue full (\(events.capacity)); dropped the oldest, \(dropped) dropped so far")
        }
    }
}
