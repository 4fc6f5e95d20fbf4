/// A publisher's retained state (presence, the last code, the snapshot, discovery, availability)
/// and what of it is still to send: the newest payload per topic only, so state never piles up
/// while the broker is away, and all of it again after every reconnect. Publisher queue only.
struct MQTTRetainedState {
    /// The latest retained payload per topic, in the order topics first came.
    private(set) var latest: [(topic: String, payload: [UInt8])]
    /// Retained messages to send, in order.
    private var waiting: [MQTTMessage] = []

    init(latest: [(topic: String, payload: [UInt8])] = []) {
        self.latest = latest
    }

    /// Messages waiting to be sent.
    var count: Int { waiting.count }
    var isEmpty: Bool { waiting.isEmpty }

    /// Sets `topic`'s state to `payload`: kept for reconnects, and sent once (the newest only).
    mutating func set(_ topic: String, _ payload: [UInt8]) {
        if let index = latest.firstIndex(where: { $0.topic == topic }) {
            latest[index].payload = payload
        } else {
            latest.append((topic, payload))
        }
        replace(MQTTMessage(topic: topic, payload: payload, retain: true))
    }

    /// Sends `message` in place of any waiting on its topic, without keeping it for reconnects
    /// (availability, whose payload the publisher decides when it reconnects).
    mutating func replace(_ message: MQTTMessage) {
        waiting.removeAll { $0.topic == message.topic }
        waiting.append(message)
    }

    /// Everything again, after `first` (availability and discovery): a new connection, or a
    /// Home Assistant that restarted.
    mutating func sendAll(after first: [MQTTMessage]) {
        waiting = first + latest.map { MQTTMessage(topic: $0.topic, payload: $0.payload, retain: true) }
    }

    /// The next message to send.
    mutating func popFirst() -> MQTTMessage? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }

    /// A message that could not be handed over, first again.
    mutating func putBack(_ message: MQTTMessage) {
        waiting.insert(message, at: 0)
    }
}
