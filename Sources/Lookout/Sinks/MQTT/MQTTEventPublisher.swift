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
/// published again. Each event line carries `"id":"<node>/<camera>/<sequence>"` first. Every
/// message is QoS 1.
public final class MQTTEventPublisher: @unchecked Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Messages the broker acknowledged.
        public var acknowledged = 0
        /// Events dropped because the queue was full, or past the outbox's bounds.
        public var dropped = 0
        /// Events and state not yet acknowledged.
        public var pending = 0
        /// Whether the broker connection is up now.
        public var connected = false
        /// The broker connected to now (its address without the password), nil while none is.
        public var broker: String?
        /// Events in the outbox not acknowledged yet (waiting, or sent), and its files' bytes.
        public var outboxPending = 0
        public var outboxBytes: Int64 = 0
        /// Events the outbox dropped past its size or age bound (or lost to damage on disk).
        public var outboxDropped = 0

        public init(acknowledged: Int = 0, dropped: Int = 0, pending: Int = 0, connected: Bool = false, broker: String? = nil,
                    outboxPending: Int = 0, outboxBytes: Int64 = 0, outboxDropped: Int = 0) {
            self.acknowledged = acknowledged
            self.dropped = dropped
            self.pending = pending
            self.connected = connected
            self.broker = broker
            self.outboxPending = outboxPending
            self.outboxBytes = outboxBytes
            self.outboxDropped = outboxDropped
        }
    }

    private struct Message {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
    }

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
    private var events: BoundedQueue<Message>
    /// The camera's events on disk until acknowledged; nil without an outbox (then `events`).
    private var outbox: OutboxJournal?
    /// The state directory's outbox, locked before this connection is made (nil without an outbox).
    private var outboxDirectory: OutboxDirectory?
    /// The highest outbox sequence handed to libmosquitto: it sends its own in-flight messages
    /// again after a reconnect, so they are not handed over twice.
    private var handedThrough: UInt64 = 0
    /// Outbox events handed over, by libmosquitto's message ID, until acknowledged.
    private var inFlightEvents: [Int32: UInt64] = [:]
    /// The next event's sequence without an outbox: the wall clock in microseconds at start, so
    /// that ids stay unique across runs.
    private var nextSequence: UInt64
    private var syncScheduled = false
    private var outboxDroppedReported = 0
    private var outboxTrouble = OutboxTroubleReport()
    /// Each code's value for `scan` (Home Assistant's trigger), bounded like the events, sent after
    /// them: the events' queue, its bound and its report stay about events.
    private var scans: BoundedQueue<Message>
    /// The latest retained state per topic, sent again after every reconnect.
    private var retainedState: [(topic: String, payload: [UInt8])] = []
    private var stateToSend: [Message] = []
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
    private lazy var log = MQTTConnectionLog(logger: logger, brokers: configuration.brokers, queue: queue)
    /// Home Assistant's status topic, followed with discovery on (the node's connection too).
    private var homeAssistant: HomeAssistantStatus?
    /// Why the last connection was lost, until the next is made.
    private var lastLoss: String?
    private var unacknowledged = 0
    private var acknowledged = 0
    private var droppedReported = 0
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
        self.nextSequence = UInt64(max(1, OutboxJournal.wallMilliseconds())) * 1000
        if let settings = configuration.outbox {
            do throws(OutboxError) {
                // Locked before the connection: a second process on the state directory is refused
                // here, not after its connection (with the first's client ID) threw the first off.
                let directory = try OutboxDirectory.prepare(stateDirectory: settings.stateDirectory)
                outboxDirectory = directory
                if configuration.camera != nil {
                    let journal = try OutboxJournal(in: directory, name: settings.folderName(clientID: configuration.clientID), limits: settings.limits) {
                        [logger] in logger.warning("MQTT: \($0)")
                    }
                    outbox = journal
                    handedThrough = journal.done
                    if journal.pendingCount > 0 {
                        logger.notice("MQTT: \(journal.pendingCount) event\(journal.pendingCount == 1 ? "" : "s") of camera \(configuration.camera ?? "") waiting in \(journal.directory) from before; delivered first")
                    }
                }
            } catch {
                throw .outbox(error)
            }
        }
        self.scans = BoundedQueue(capacity: max(1, configuration.queueCapacity))
        if configuration.camera != nil {
            retainedState = [(topics.presence, Array("OFF".utf8))]
                + configuration.zones.map { (topics.presence(inZone: $0), Array("OFF".utf8)) }
        }
        let relay = Relay()
        homeAssistant = configuration.homeAssistantDiscoveryPrefix.map {
            HomeAssistantStatus(discoveryPrefix: $0, speaks: configuration.nodeAvailabilityTopic == nil)
        }
        connection = try MQTTConnection(configuration: configuration, subscriptions: homeAssistant.map { [$0.topic] } ?? []) {
            event in relay.publisher?.receive(event)
        }
        relay.publisher = self
    }

    /// Lets the connection reach the publisher without keeping it alive.
    private final class Relay: @unchecked Sendable {
        weak var publisher: MQTTEventPublisher?
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
                setState(change.zone.map(topics.presence(inZone:)) ?? topics.presence,
                         Array((change.isPresent ? "ON" : "OFF").utf8))
            case .code(let code):
                setState(topics.lastCode, Array(code.stringValue.utf8))
            default:
                break
            }
            appendEvent(payload)
            if case .code(let code) = event {
                scans.append(Message(topic: topics.codeScanned, payload: Array(code.stringValue.utf8), retain: false))
            }
            drain()
        }
    }

    /// Publishes an event snapshot (binary JPEG) to `<prefix>/snapshot`, retained. Only the newest
    /// waits while the broker is away, so snapshots never pile up in memory.
    public func publishSnapshot(_ jpeg: [UInt8]) {
        queue.async { [self] in
            setState(topics.snapshot, jpeg)
            drain()
        }
    }

    /// Removes the camera's Home Assistant entities (empty retained discovery configs), for a
    /// camera a reload removed: Home Assistant then forgets it instead of showing it unavailable.
    public func withdrawDiscovery() {
        queue.async { [self] in
            guard let discovery, !discoveryWithdrawn else { return }
            discoveryWithdrawn = true
            for config in discovery.messages { setState(config.topic, []) }
            drain()
        }
    }

    /// Says whether the camera's frames flow (retained `available`), now and after reconnects.
    public func setAvailable(_ isAvailable: Bool) {
        queue.async { [self] in
            guard available != isAvailable else { return }
            available = isAvailable
            guard connected else { return } // sent first on connecting
            stateToSend.removeAll { $0.topic == topics.availability }
            stateToSend.append(Message(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true))
            drain()
        }
    }

    private var availabilityPayload: String { available ? MQTTTopics.online : MQTTTopics.offline }

    public var statistics: Statistics {
        queue.sync {
            Statistics(acknowledged: acknowledged, dropped: events.dropped + scans.dropped + (outbox?.dropped ?? 0),
                       pending: events.count + outboxWaiting + scans.count + stateToSend.count + unacknowledged, connected: connected,
                       broker: connected ? configuration.brokers[brokerInUse].redacted : nil,
                       outboxPending: outbox?.pendingCount ?? 0, outboxBytes: outbox?.bytes ?? 0, outboxDropped: outbox?.dropped ?? 0)
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
            if connected { send(Message(topic: topics.availability, payload: Array(MQTTTopics.offline.utf8), retain: true)) }
        }
        waitUntilIdle(timeout: left(keeping: 0.2))
        let waited = min(bound, Double(MonotonicClock.nanoseconds() - start) / 1e9)
        let undelivered = queue.sync { undeliveredNow(waited: waited) }
        connection.stop(timeout: max(0, left(keeping: 0)))
        queue.sync { log.finish() }
        // What is not done stays on disk for the next start; the lock goes with the files.
        queue.sync {
            outbox?.close()
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
        let firstMessages = 1 + (discovery?.messages.count ?? 0) + retainedState.count
        let messages = events.count + outboxWaiting + scans.count + (everConnected ? stateToSend.count + unacknowledged : firstMessages)
        guard messages > 0 else { return nil }
        let cause: Undelivered.Cause
        if connected {
            cause = .notAcknowledged(seconds: waited)
        } else if let waiting = connection.secondsWaitingForBroker {
            cause = .noAnswer(seconds: waiting)
        } else if let lastFailure {
            cause = .cannotConnect(lastFailure)
        } else if let lastLoss {
            cause = .connectionLost(lastLoss)
        } else {
            cause = .noAnswer(seconds: waited) // the first attempt not yet under way
        }
        return Undelivered(messages: messages, cause: cause, kept: outbox?.pendingCount ?? 0)
    }

    private func setState(_ topic: String, _ payload: [UInt8]) {
        if let index = retainedState.firstIndex(where: { $0.topic == topic }) {
            retainedState[index].payload = payload
        } else {
            retainedState.append((topic, payload))
        }
        stateToSend.removeAll { $0.topic == topic }
        stateToSend.append(Message(topic: topic, payload: payload, retain: true))
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
            if homeAssistant?.restarted(stateWaiting: !stateToSend.isEmpty) == true { sendEverythingRetained() }
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
            if homeAssistant?.acknowledged(messageID, stateWaiting: !stateToSend.isEmpty) == true { sendEverythingRetained() }
            if let sequence = inFlightEvents.removeValue(forKey: messageID) {
                usingOutbox { journal throws(OutboxError) in try journal.acknowledge(sequence) }
                scheduleSync()
            }
            drain()
        }
    }

    /// Availability first, then discovery and state, then the waiting events: what a broker or
    /// Home Assistant that forgot needs, replacing any state not sent yet (the newest is kept).
    private func sendEverythingRetained() {
        var first = [Message(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true)]
        for config in discovery?.messages ?? [] where !discoveryWithdrawn {
            first.append(Message(topic: config.topic, payload: config.payload, retain: true))
        }
        stateToSend = first + retainedState.map { Message(topic: $0.topic, payload: $0.payload, retain: true) }
        drain()
    }

    private func drain() {
        if connected { usingOutbox { journal throws(OutboxError) in try journal.dropExpired() } }
        while connected && unacknowledged < window {
            let message: Message
            let isState = !stateToSend.isEmpty
            if isState {
                message = stateToSend.removeFirst()
            } else if let outbox, let event = outbox.event(after: handedThrough) {
                guard let messageID = send(Message(topic: event.topic, payload: event.payload, retain: false)) else { break }
                inFlightEvents[messageID] = event.sequence
                handedThrough = event.sequence
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
                    stateToSend.insert(message, at: 0)
                }
                break
            }
            if isState { homeAssistant?.handedOver(messageID) }
        }
        signalIdleIfWaiting()
    }

    /// Hands `message` to libmosquitto; its message ID, or nil when there is no connection.
    @discardableResult
    private func send(_ message: Message) -> Int32? {
        guard let messageID = connection.publish(topic: message.topic, payload: message.payload, retain: message.retain) else {
            return nil
        }
        unacknowledged += 1
        return messageID
    }

    /// Nothing left to deliver, or no broker to deliver it to (the first attempt has been made).
    private var isIdleQueueOnly: Bool {
        connected ? events.isEmpty && outboxWaiting == 0 && scans.isEmpty && stateToSend.isEmpty && unacknowledged == 0 : !firstAttemptPending
    }

    private func signalIdleIfWaiting() {
        guard waitingForIdle else { return }
        if isIdleQueueOnly {
            waitingForIdle = false
            idle.signal()
        }
    }

    /// Outbox events not handed to libmosquitto yet.
    private var outboxWaiting: Int { outbox?.count(after: handedThrough) ?? 0 }

    /// Gives the event line its id and keeps it: in the outbox, or in memory without one (or
    /// when the outbox cannot be written: a disk error loses the event at a restart, not now).
    private func appendEvent(_ line: [UInt8]) {
        let node = configuration.nodeID ?? configuration.clientID, camera = configuration.camera ?? ""
        if let outbox {
            let droppedBefore = outbox.dropped
            // Kept, or dropped past the bounds (counted): either way the outbox has dealt with it.
            var appended = false
            usingOutbox(.append) { journal throws(OutboxError) in
                _ = try journal.append(topic: topics.events) {
                    MQTTEventID.splice(MQTTEventID.text(node: node, camera: camera, sequence: $0), into: line)
                }
                appended = true
            }
            if outbox.dropped > droppedBefore { reportOutboxDrops(outbox) }
            if appended {
                scheduleSync()
                return
            }
        }
        // No outbox, or it could not write: the event waits in memory, numbered in the same
        // series (the journal's while there is one), so ids keep their order.
        let sequence: UInt64
        if let outbox {
            sequence = outbox.skipSequence()
            outboxTrouble.keptEventInMemory()
        } else {
            sequence = nextSequence
            nextSequence += 1
        }
        let payload = MQTTEventID.splice(MQTTEventID.text(node: node, camera: camera, sequence: sequence), into: line)
        if events.append(Message(topic: topics.events, payload: payload, retain: false)) {
            reportDrops()
        }
    }

    /// Runs `body`, doing `operation`'s work, on the outbox; a disk error is not a stop: a warning
    /// when the trouble starts, a notice when it ends (`OutboxTroubleReport`), nothing per event.
    private func usingOutbox(_ operation: OutboxTroubleReport.Operation = .other, _ body: (OutboxJournal) throws(OutboxError) -> Void) {
        guard let outbox else { return }
        do throws(OutboxError) {
            try body(outbox)
            if let notice = outboxTrouble.succeeded(operation, directory: outbox.directory) { logger.notice("MQTT: \(notice)") }
        } catch {
            if let warning = outboxTrouble.failed(operation, error) { logger.warning("MQTT: \(warning)") }
        }
    }

    /// fsync(2)s the outbox within its interval of the first record written since the last.
    private func scheduleSync() {
        guard let outbox, outbox.unsynced > 0, !syncScheduled else { return }
        syncScheduled = true
        queue.asyncAfter(deadline: .fromNow(seconds: outbox.limits.syncInterval)) { [weak self] in
            guard let self else { return }
            syncScheduled = false
            usingOutbox(.sync) { journal throws(OutboxError) in try journal.sync() }
        }
    }

    /// As `reportDrops`, for the outbox's bounds.
    private func reportOutboxDrops(_ outbox: OutboxJournal) {
        let dropped = outbox.dropped
        if outboxDroppedReported == 0 || dropped - outboxDroppedReported >= 1000 {
            outboxDroppedReported = dropped
            logger.warning("MQTT: outbox \(outbox.directory) \(outbox.lastDropCause); dropped the oldest events, \(dropped) dropped so far")
        }
    }

    /// One warning when drops start, then one per thousand, so a long outage cannot flood stderr.
    private func reportDrops() {
        let dropped = events.dropped
        if dropped == 1 || dropped - droppedReported >= 1000 {
            droppedReported = dropped
            logger.warning("MQTT: event queue full (\(events.capacity)); dropped the oldest, \(dropped) dropped so far")
        }
    }
}
