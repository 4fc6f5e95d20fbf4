/// What a node's connections could not deliver when they stopped, gathered so that six cameras
/// behind one silent broker make one line, not seven:
/// "MQTT: 9 messages to mqtt://broker:1883/lookout not delivered (camera a, camera b, the node):
/// the broker did not answer within 2 s".
final class MQTTUndeliveredReport: Sendable {
    private let entries = Locked<[(sender: String, undelivered: MQTTEventPublisher.Undelivered)]>([])
    /// Senders in the order they were made (the command line's), for lines that read the same every time.
    private let senders = Locked<[String]>([])

    /// A sender ("camera hall", "the node") that may report; in the order lines should name them.
    func register(sender: String) {
        senders.withLock { $0.append(sender) }
    }

    /// Records what `sender` did not deliver; any thread.
    func add(sender: String, _ undelivered: MQTTEventPublisher.Undelivered) {
        entries.withLock { $0.append((sender, undelivered)) }
    }

    /// One sentence per cause, in the order first seen. "Did not answer within N s" takes the
    /// shortest of those alike (true of each); "did not acknowledge them within N s" the longest,
    /// the stop's wait: the node waits after its cameras, for what is left of the bound.
    func sentences(broker: MQTTBrokerAddress) -> [String] {
        let order = senders.withLock { $0 }
        let entries = entries.withLock { $0 }.sorted {
            (order.firstIndex(of: $0.sender) ?? order.count) < (order.firstIndex(of: $1.sender) ?? order.count)
        }
        var kinds: [MQTTEventPublisher.Undelivered.Cause] = []
        for entry in entries where !kinds.contains(entry.undelivered.cause.kind) { kinds.append(entry.undelivered.cause.kind) }
        return kinds.compactMap { kind in
            let matching = entries.filter { $0.undelivered.cause.kind == kind }
            guard let first = matching.first?.undelivered.cause else { return nil }
            let causes = matching.map(\.undelivered.cause).sorted { ($0.seconds ?? 0) < ($1.seconds ?? 0) }
            let cause = (kind == .notAcknowledged(seconds: 0) ? causes.last : causes.first) ?? first
            let total = MQTTEventPublisher.Undelivered(messages: matching.reduce(0) { $0 + $1.undelivered.messages }, cause: cause,
                                                       kept: matching.reduce(0) { $0 + $1.undelivered.kept })
            return Self.sentence(broker: broker, senders: matching.map(\.sender), total)
        }
    }

    static func sentence(broker: MQTTBrokerAddress, senders: [String], _ undelivered: MQTTEventPublisher.Undelivered) -> String {
        let count = undelivered.messages
        let kept = undelivered.kept == 0 ? "" : "; \(undelivered.kept) event\(undelivered.kept == 1 ? "" : "s") kept in the outbox for the next start"
        return "MQTT: \(count) message\(count == 1 ? "" : "s") to \(broker.redacted) not delivered (\(senders.joined(separator: ", "))): \(undelivered.cause.description)\(kept)"
    }
}
