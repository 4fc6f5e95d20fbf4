import CMosquitto
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One libmosquitto client with its own network thread: connects, keeps the connection alive,
/// and reconnects with backoff (1 s doubling to 30 s) for as long as it runs. With several
/// brokers (one fabric), each attempt after a loss or a failure goes to the next broker in turn.
/// The backoff starts again from 1 s only once a connection has stayed up `stableAfter` seconds:
/// a broker that accepts the connection and closes it soon after (full, an ACL that refuses the
/// will, a proxy with nothing behind it) is retried with doubling waits, as one that refuses.
///
/// The session is persistent (clean session off, the configuration's stable client ID): the
/// fabric keeps its subscriptions and QoS 1 state between connections, on whichever broker.
/// libmosquitto keeps the QoS 1 messages it has accepted and not seen acknowledged, and sends them
/// again on the next connection, to the same broker or the next; the caller bounds how many it
/// hands over. Events arrive on the network thread.
// @unchecked: the libmosquitto handle (an OpaquePointer) is shared by publishers and the network thread, as its threaded mode allows.
final class MQTTConnection: @unchecked Sendable {
    enum Event: Sendable {
        /// The broker (an index into the configuration's `brokers`) accepted the connection.
        case connected(broker: Int)
        /// A connection attempt to this broker failed or the broker refused it.
        case connectFailed(broker: Int, String)
        /// The connection up has stayed up `stableAfter` seconds: it counts as working, and the
        /// next loss is retried after 1 s again.
        case stable(broker: Int)
        /// An established connection to this broker was lost; `stayedUp`: after `.stable`.
        case disconnected(broker: Int, String, stayedUp: Bool)
        /// The broker acknowledged the QoS 1 message with this ID.
        case acknowledged(Int32)
        /// A message arrived on a subscribed topic; `retained` when the broker kept it from before
        /// this connection subscribed.
        case message(topic: String, payload: [UInt8], retained: Bool)
    }

    /// nil once libmosquitto is loaded and initialised; otherwise why it could not be loaded.
    private static let libraryLoadError: String? = {
        var message = [CChar](repeating: 0, count: 512)
        guard lk_mosquitto_load(&message, message.count) == 0 else {
            return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        _ = lk_mosquitto_lib_init()
        return nil
    }()

    private let handle: OpaquePointer
    private let configuration: MQTTConfiguration
    /// Topics subscribed to (QoS 0) on every connection: a broker that lost the session (or one
    /// that never had it) gets them again.
    private let subscriptions: [String]
    private let onEvent: @Sendable (Event) -> Void
    private let stopping = Atomic<Bool>(false)
    /// MonotonicClock nanoseconds by which a stop gives up on a clean disconnect.
    private let stopBy = Atomic<Int64>(.max)
    private let sessionUp = Atomic<Bool>(false)
    /// MonotonicClock nanoseconds when the broker accepted the connection up.
    private let connectedAt = Atomic<Int64>(0)
    /// The broker's CONNACK refused this attempt, and that has been said: the loop's own end
    /// (CONN_REFUSED) is not said again.
    private let refusedByBroker = Atomic<Bool>(false)
    /// MonotonicClock nanoseconds when the attempt now waiting for the broker began; 0 when none is.
    private let attemptStartedAt = Atomic<Int64>(0)
    /// The broker of the attempt under way or the connection up (an index into `brokers`).
    private let brokerIndex: Atomic<Int>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    init(configuration: MQTTConfiguration, subscriptions: [String] = [],
         onEvent: @escaping @Sendable (Event) -> Void) throws(MQTTError) {
        if let reason = Self.libraryLoadError { throw .libraryMissing(reason) }
        guard let handle = lk_mosquitto_new(configuration.clientID, false, nil) else {
            throw .library(call: "mosquitto_new", code: Int32(MOSQ_ERR_ERRNO.rawValue))
        }
        self.handle = handle
        self.configuration = configuration
        self.brokerIndex = Atomic(configuration.startingBroker)
        self.subscriptions = subscriptions
        self.onEvent = onEvent
        // Every stored property is set: when this throws, deinit runs and destroys the handle
        // (destroying it here as well freed it twice; AddressSanitizer found it).
        try configure()
        lk_mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        lk_mosquitto_connect_callback_set(handle) { _, context, code in
            MQTTConnection.from(context).connackReceived(code)
        }
        lk_mosquitto_publish_callback_set(handle) { _, context, messageID in
            MQTTConnection.from(context).onEvent(.acknowledged(messageID))
        }
        if !subscriptions.isEmpty {
            lk_mosquitto_message_callback_set(handle) { _, context, message in
                guard let message, let topic = message.pointee.topic else { return }
                let count = Int(max(0, message.pointee.payloadlen))
                let payload = count == 0 || message.pointee.payload == nil
                    ? [] : Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: count))
                MQTTConnection.from(context).onEvent(.message(topic: String(cString: topic), payload: payload,
                                                              retained: message.pointee.retain))
            }
        }
    }

    deinit {
        lk_mosquitto_destroy(handle)
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue()
    }

    private func check(_ call: String, _ code: Int32) throws(MQTTError) {
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw .library(call: call, code: code) }
    }

    private func configure() throws(MQTTError) {
        // Publishing happens on other threads than the network loop.
        try check("mosquitto_threaded_set", lk_mosquitto_threaded_set(handle, true))
        try check("mosquitto_int_option", lk_mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311))
        let topics = configuration.topics
        try check("mosquitto_will_set", lk_mosquitto_will_set(handle, topics.availability, Int32(MQTTTopics.offline.utf8.count),
                                                           MQTTTopics.offline, 1, true))
        // Each broker's credentials are checked now; the first broker's are set last, for the first attempt.
        for broker in configuration.brokers.reversed() { try useCredentials(of: broker) }
        if configuration.broker.usesTLS {
            for path in [configuration.caFile, configuration.certificateFile, configuration.keyFile].compactMap({ $0 }) {
                guard path.withPlatformPath({ access($0, R_OK) }) == 0 else { throw .unreadableFile(path: path, .current) }
            }
            let caPath = configuration.caFile == nil ? "/etc/ssl/certs" : nil
            // No passphrase callback: an encrypted key fails instead of prompting on the terminal.
            // The files as their bytes name them (see String(platformPath:)).
            let files = [configuration.caFile, configuration.certificateFile, configuration.keyFile]
                .map { $0.map { path in path.platformPathBytes.map { CChar(bitPattern: $0) } + [0] } }
            try check("mosquitto_tls_set", lk_mosquitto_tls_set(handle, files[0], caPath, files[1], files[2],
                                                             { _, _, _, _ in 0 }))
        }
    }

    /// The user name and password for `broker`: the configuration's, else the address's own.
    private func useCredentials(of broker: MQTTBrokerAddress) throws(MQTTError) {
        let username = configuration.username ?? broker.username
        let password = configuration.password ?? broker.password
        try check("mosquitto_username_pw_set", lk_mosquitto_username_pw_set(handle, username, password))
    }

    /// Seconds an attempt waits for the broker's CONNACK (the TCP connect included) before the
    /// next broker is tried: far more than a loaded broker takes, far less than the kernel's
    /// two minutes of SYN retries to a host that is off.
    static let connectTimeout = 15.0

    /// Seconds a connection must stay up to count as working: one lost sooner is a failed attempt
    /// for the backoff (the wait keeps doubling) and for what is said (`MQTTConnectionLog`).
    static let stableAfter = 10.0
    /// The longest wait between attempts.
    static let longestRetryDelay = 30.0

    /// The broker of the attempt under way, or of the connection up.
    var currentBroker: Int { brokerIndex.load(ordering: .relaxed) }

    /// Starts connecting on the network thread.
    func start() {
        precondition(!started.exchange(true, ordering: .relaxed), "an MQTT connection starts once")
        // A queue of its own: the loop blocks in select(2) for its whole life.
        DispatchQueue(label: "lookout.mqtt-network").async { [self] in run() }
    }

    /// Hands a message to libmosquitto; returns its message ID, or nil when it was not taken.
    ///
    /// A QoS 1 message is queued before libmosquitto tries to send it: "no connection" with a
    /// message ID (the socket closed a moment ago) means taken, sent on the next connection.
    func publish(topic: String, payload: [UInt8], retain: Bool) -> Int32? {
        var messageID: Int32 = 0
        let code = payload.withUnsafeBytes {
            lk_mosquitto_publish(handle, &messageID, topic, Int32($0.count), $0.baseAddress, 1, retain)
        }
        let taken = code == Int32(MOSQ_ERR_SUCCESS.rawValue) || (code == Int32(MOSQ_ERR_NO_CONN.rawValue) && messageID != 0)
        return taken ? messageID : nil
    }

    /// Disconnects cleanly and ends the network thread, waiting `timeout` seconds at most. A
    /// thread still blocked in libmosquitto (a TCP connect to a host that does not answer) is left
    /// behind: it holds this connection until it returns.
    func stop(timeout: Double) {
        guard started.load(ordering: .relaxed), !stopping.exchange(true, ordering: .relaxed) else { return }
        stopBy.store(MonotonicClock.nanoseconds() + Int64(max(0, timeout) * 1e9), ordering: .relaxed)
        if sessionUp.load(ordering: .relaxed) { lk_mosquitto_disconnect(handle) }
        wake.signal()
        _ = finished.wait(timeout: .now() + max(0, timeout))
    }

    /// Seconds since the attempt now waiting for the broker's answer began (the TCP connect, or
    /// the CONNECT sent and no CONNACK yet); nil when no attempt is waiting.
    var secondsWaitingForBroker: Double? {
        let start = attemptStartedAt.load(ordering: .relaxed)
        return start == 0 ? nil : Double(MonotonicClock.nanoseconds() - start) / 1e9
    }

    private func connackReceived(_ code: Int32) {
        attemptStartedAt.store(0, ordering: .relaxed)
        if code == 0 {
            connectedAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
            sessionUp.store(true, ordering: .relaxed)
            // A failed subscription is not fatal: what it brings (Home Assistant's restarts) is
            // a nicety, and the next connection tries again.
            // QoS 0: only a live message matters (Home Assistant's restart), and on a clustered
            // broker each QoS 1 subscription of a persistent session is a replicated consumer.
            for topic in subscriptions { _ = lk_mosquitto_subscribe(handle, nil, topic, 0) }
            onEvent(.connected(broker: currentBroker))
        } else {
            refusedByBroker.store(true, ordering: .relaxed)
            onEvent(.connectFailed(broker: currentBroker, "the broker refused the connection: " + MQTTResultCode.words(forRefusal: code)))
        }
    }

    private func run() {
        defer { finished.signal() }
        let brokers = configuration.brokers
        var backoff = Backoff(first: 1, longest: Self.longestRetryDelay)
        /// The broker libmosquitto last connected to (`reconnect` goes there again); nil at first.
        var lastTried: Int?
        let first = configuration.startingBroker
        var index = first
        while !stopping.load(ordering: .relaxed) {
            brokerIndex.store(index, ordering: .relaxed)
            attemptStartedAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
            let broker = brokers[index]
            let code: Int32
            if lastTried == index {
                code = lk_mosquitto_reconnect_async(handle)
            } else {
                // Another broker may take other credentials; the TLS settings are the fabric's.
                // (Checked at set-up: this cannot fail.)
                try? useCredentials(of: broker)
                code = lk_mosquitto_connect_async(handle, broker.host, Int32(broker.port), Int32(configuration.keepAlive))
            }
            lastTried = index
            /// No CONNACK within `connectTimeout` (a host that is off, a broker that is stuck).
            var unanswered = false
            if code == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                // On stop, the loop runs on until libmosquitto has written the DISCONNECT and
                // closed the socket (NO_CONN), within the stop's bound: cut short, the broker
                // would see the connection drop and publish the "offline" will on top of
                // Lookout's own "offline". A session never answered has nothing to close cleanly.
                var loop = code
                var stayedUp = false
                while loop == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                    loop = lk_mosquitto_loop(handle, 100, 1)
                    if !stayedUp, sessionUp.load(ordering: .relaxed),
                       MonotonicClock.nanoseconds() - connectedAt.load(ordering: .relaxed) >= Int64(Self.stableAfter * 1e9) {
                        stayedUp = true
                        backoff.reset()
                        onEvent(.stable(broker: index))
                    }
                    if stopping.load(ordering: .relaxed),
                       !sessionUp.load(ordering: .relaxed) || MonotonicClock.nanoseconds() > stopBy.load(ordering: .relaxed) {
                        break
                    }
                    let attemptStart = attemptStartedAt.load(ordering: .relaxed)
                    if loop == Int32(MOSQ_ERR_SUCCESS.rawValue), !sessionUp.load(ordering: .relaxed), attemptStart != 0,
                       MonotonicClock.nanoseconds() - attemptStart > Int64(Self.connectTimeout * 1e9) {
                        unanswered = true
                        break
                    }
                }
                let reason = MQTTError.message(for: loop)
                if stopping.load(ordering: .relaxed) { break }
                attemptStartedAt.store(0, ordering: .relaxed)
                if sessionUp.exchange(false, ordering: .relaxed) {
                    // Lost before it stayed up: the delay goes on doubling, as for a refusal.
                    onEvent(.disconnected(broker: index, reason, stayedUp: stayedUp))
                } else if refusedByBroker.exchange(false, ordering: .relaxed) {
                    // Said when the CONNACK came.
                } else {
                    onEvent(.connectFailed(broker: index, unanswered ? "no answer within \(Int(Self.connectTimeout)) s" : reason))
                }
            } else {
                let reason = MQTTError.message(for: code)
                attemptStartedAt.store(0, ordering: .relaxed)
                onEvent(.connectFailed(broker: index, reason))
            }
            // The next attempt goes to the next broker; a lost broker's successor is tried after
            // the first delay (1 s, after a connection that stayed up), and a whole round failing
            // doubles it, up to 30 s.
            index = (index + 1) % brokers.count
            _ = wake.wait(timeout: .now() + backoff.delay)
            if index == first || brokers.count == 1 { backoff.increase() }
        }
    }
}
