import Dispatch
import Logging

/// What an `MQTTEventPublisher` keeps and decides, used on its serial queue only and behind its
/// lock (never contended: the queue orders the work, the lock lets the compiler check it). Every
/// libmosquitto publish happens here, so messages leave in the order they were made.
struct MQTTPublisherState {
    /// Runs `work` on the publisher's queue with this state, `seconds` from now (nothing when the
    /// publisher is gone by then).
    typealias Later = @Sendable (_ seconds: Double, _ work: @escaping @Sendable (inout MQTTPublisherState) -> Void) -> Void

    let configuration: MQTTConfiguration
    let topics: MQTTTopics
    let connection: MQTTConnection
    let logger: Logger
    private let later: Later
    private let discovery: HomeAssistantDiscovery?
    /// The discovery configs were withdrawn (`withdrawDiscovery()`).
    private var discoveryWithdrawn = false
    private var events: BoundedQueue<MQTTMessage>
    /// The camera's events on disk until acknowledged; nil without an outbox (then `events`).
    private(set) var outbox: MQTTEventOutbox?
    /// Each code's value for `scan` (Home Assistant's trigger), bounded like the events, sent after
    /// them: the events' queue, its bound and its report stay about events.
    private var scans: BoundedQueue<MQTTMessage>
    /// The retained state, sent again after every reconnect, and what of it waits to be sent.
    private var retained = MQTTRetainedState()
    private(set) var connected = false
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
    private var log: MQTTConnectionLog
    /// Home Assistant's status topic, followed with discovery on (the node's connection too).
    private var homeAssistant: HomeAssistantStatus?
    /// Why the last connection was lost, until the next is made.
    private var lastLoss: String?
    private var unacknowledged = 0
    private var acknowledged = 0
    private var dropWarning = DropWarning(every: 1000)
    /// Signalled when a stop waits for idleness (`waitingForIdle`) and it comes.
    private let idle: DispatchSemaphore
    private var waitingForIdle = false
    /// Messages handed to libmosquitto and not yet acknowledged, at most: bounds its own queue.
    private let window = 64

    init(configuration: MQTTConfiguration, connection: MQTTConnection, outbox: MQTTEventOutbox?,
         homeAssistant: HomeAssistantStatus?, idle: DispatchSemaphore, logger: Logger, later: @escaping Later) {
        self.configuration = configuration
        topics = configuration.topics
        self.connection = connection
        self.logger = logger
        self.later = later
        self.outbox = outbox
        self.homeAssistant = homeAssistant
        self.idle = idle
        brokerInUse = configuration.startingBroker
        discovery = configuration.camera == nil ? nil : configuration.homeAssistantDiscoveryPrefix.map {
            HomeAssistantDiscovery(discoveryPrefix: $0, configuration: configuration)
        }
        events = BoundedQueue(capacity: max(1, configuration.queueCapacity))
        scans = BoundedQueue(capacity: max(1, configuration.queueCapacity))
        log = MQTTConnectionLog(logger: logger, brokers: configuration.brokers) { end, seconds in
            later(seconds) { $0.log.summaryTimerFired(end: end) }
        }
        if configuration.camera != nil {
            let topics = configuration.topics
            retained = MQTTRetainedState(latest: [(topics.presence, Array("OFF".utf8))]
                + configuration.zones.map { (topics.presence(inZone: $0), Array("OFF".utf8)) })
        }
    }

    // MARK: What the publisher asks

    mutating func publish(_ event: DetectionEvent, payload: [UInt8]) {
        switch event {
        case .presence(let change):
            retained.set(change.zone.map(topics.presence(inZone:)) ?? topics.presence, Array((change.isPresent ? "ON" : "OFF").utf8))
        case .code(let code):
            retained.set(topics.lastCode, Array(code.stringValue.utf8))
        default:
            break
        }
        appendEvent(payload)
        if case .code(let code) = event {
            scans.append(MQTTMessage(topic: topics.codeScanned, payload: Array(code.stringValue.utf8), retain: false))
        }
        drain()
    }

    mutating func publishSnapshot(_ jpeg: [UInt8]) {
        retained.set(topics.snapshot, jpeg)
        drain()
    }

    mutating func withdrawDiscovery() {
        guard let discovery, !discoveryWithdrawn else { return }
        discoveryWithdrawn = true
        for config in discovery.messages { retained.set(config.topic, []) }
        drain()
    }

    mutating func setAvailable(_ isAvailable: Bool) {
        guard available != isAvailable else { return }
        available = isAvailable
        guard connected else { return } // sent first on connecting
        retained.replace(MQTTMessage(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true))
        drain()
    }

    var statistics: MQTTEventPublisher.Statistics {
        MQTTEventPublisher.Statistics(
            acknowledged: acknowledged, dropped: events.dropped + scans.dropped + (outbox?.journal.dropped ?? 0),
            pending: events.count + outboxWaiting + scans.count + retained.count + unacknowledged, connected: connected,
            broker: connected ? configuration.brokers[brokerInUse].redacted : nil,
            outboxPending: outbox?.journal.pendingCount ?? 0, outboxBytes: outbox?.journal.bytes ?? 0,
            outboxDropped: outbox?.journal.dropped ?? 0)
    }

    /// Publishes "offline" when connected (a stop).
    mutating func sendOffline() {
        if connected { send(MQTTMessage(topic: topics.availability, payload: Array(MQTTTopics.offline.utf8), retain: true)) }
    }

    /// Says whether all is delivered (or cannot be), and if not, that a stop waits for it.
    mutating func checkIdle() -> Bool {
        let isIdle = isIdleQueueOnly
        waitingForIdle = !isIdle
        return isIdle
    }

    /// Says what the connection's log has not said yet (a stop).
    mutating func finishLog() { log.finish() }

    /// Closes the outbox: what is not done stays on disk for the next start; the lock goes with the files.
    mutating func closeOutbox() {
        outbox?.journal.close()
        outbox = nil
    }

    /// What is not delivered now, after a stop waited `waited` seconds for it.
    func undeliveredNow(waited: Double) -> MQTTEventPublisher.Undelivered? {
        // A connection never made would have sent availability, discovery and state first.
        let firstMessages = 1 + (discovery?.messages.count ?? 0) + retained.latest.count
        let messages = events.count + outboxWaiting + scans.count + (everConnected ? retained.count + unacknowledged : firstMessages)
        guard messages > 0 else { return nil }
        let cause = MQTTEventPublisher.Undelivered.cause(connected: connected, waitingForBroker: connection.secondsWaitingForBroker,
                                                          lastFailure: lastFailure, lastLoss: lastLoss, waited: waited)
        return MQTTEventPublisher.Undelivered(messages: messages, cause: cause, kept: outbox?.journal.pendingCount ?? 0)
    }

    // MARK: What the connection says

    mutating func handle(_ event: MQTTConnection.Event) {
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
        case .message(let topic, let payload, let isRetained):
            guard homeAssistant?.isRestart(topic: topic, payload: payload, retained: isRetained) == true, !discoveryWithdrawn else { break }
            if homeAssistant?.speaks == true { log.homeAssistantOnline() }
            if homeAssistant?.restarted(stateWaiting: !retained.isEmpty) == true { sendEverythingRetained() }
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
            if homeAssistant?.acknowledged(messageID, stateWaiting: !retained.isEmpty) == true { sendEverythingRetained() }
            if outbox?.acknowledged(messageID) == true { scheduleSync() }
            drain()
        }
    }

    // MARK: Delivery

    private var availabilityPayload: String { available ? MQTTTopics.online : MQTTTopics.offline }

    /// Availability first, then discovery and state, then the waiting events: what a broker or
    /// Home Assistant that forgot needs, replacing any state not sent yet (the newest is kept).
    private mutating func sendEverythingRetained() {
        var first = [MQTTMessage(topic: topics.availability, payload: Array(availabilityPayload.utf8), retain: true)]
        for config in discovery?.messages ?? [] where !discoveryWithdrawn {
            first.append(MQTTMessage(topic: config.topic, payload: config.payload, retain: true))
        }
        retained.sendAll(after: first)
        drain()
    }

    private mutating func drain() {
        if connected { outbox?.using { journal throws(OutboxError) in try journal.dropExpired() } }
        while connected && unacknowledged < window {
            let message: MQTTMessage
            var isState = false
            if let first = retained.popFirst() {
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
                    retained.putBack(message)
                }
                break
            }
            if isState { homeAssistant?.handedOver(messageID) }
        }
        signalIdleIfWaiting()
    }

    /// Hands `message` to libmosquitto; its message ID, or nil when there is no connection.
    @discardableResult
    private mutating func send(_ message: MQTTMessage) -> Int32? {
        guard let messageID = connection.publish(topic: message.topic, payload: message.payload, retain: message.retain) else {
            return nil
        }
        unacknowledged += 1
        return messageID
    }

    /// Nothing left to deliver, or no broker to deliver it to (the first attempt has been made).
    private var isIdleQueueOnly: Bool {
        connected ? events.isEmpty && outboxWaiting == 0 && scans.isEmpty && retained.isEmpty && unacknowledged == 0 : !firstAttemptPending
    }

    private mutating func signalIdleIfWaiting() {
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
    private mutating func appendEvent(_ line: [UInt8]) {
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
        later(delay) { $0.outbox?.sync() }
    }

    /// One warning when drops start, then one per thousand, so a long outage cannot flood stderr.
    private mutating func reportDrops() {
        let dropped = events.dropped
        if dropWarning.shouldSay(dropped) {
            logger.warning("MQTT: event queue full (\(events.capacity)); dropped the oldest, \(dropped) dropped so far")
        }
    }
}
