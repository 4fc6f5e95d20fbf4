import Foundation
import Testing
@testable import Lookout

/// The MQTT outbox with a real mosquitto: events made while the broker is down outlive the
/// publisher (stopped, or the whole lookout process killed) and arrive after the next start, in
/// order, each with its id, none missing.
@Suite("Outbox delivery", .serialized)
struct OutboxDeliveryTests {
    static let prefix = "lookout-outbox"
    static let camera = prefix + "/hall"

    static func presence(_ isPresent: Bool, at seconds: Double) -> DetectionEvent {
        let frame = AnalysedFrame(sequence: UInt64(seconds * 10), presentationTime: MediaTime(seconds: seconds),
                                  wallClockTime: .now(), width: 640, height: 360)
        return .presence(PresenceChange(isPresent: isPresent, faceCount: isPresent ? 1 : 0, lastSeen: nil,
                                        reason: isPresent ? nil : .timeout, frame: frame))
    }

    static func configuration(_ broker: MQTTBroker, state: String, node: String) throws -> MQTTConfiguration {
        var configuration = MQTTConfiguration(broker: try MQTTBrokerAddress("\(broker.url)/\(prefix)"), clientID: node)
        configuration.outbox = OutboxSettings(stateDirectory: state)
        return configuration.forCamera("hall")
    }

    /// Events numbered as the pipeline numbers them: `<node>/hall/<index + 1>`.
    static func publish(_ publisher: MQTTEventPublisher, count: Int, from first: Int, node: String) {
        var encoder = EventLineEncoder(source: "hall.mjpeg", camera: "hall")
        for index in first..<(first + count) {
            let event = presence(index % 2 == 0, at: Double(index))
            publisher.publish(event, line: encoder.encode(event, id: EventNumbering.id(node: node, camera: "hall", number: UInt64(index + 1))))
        }
    }

    @Test func eventsMadeWhileTheBrokerIsDownArriveAfterARestartInOrder() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        let node = "outbox-\(UUID().uuidString.prefix(8))"
        let configuration = try Self.configuration(broker, state: state.path, node: node)

        // The broker is down: twelve events wait, and the stop keeps them.
        let first = try MQTTEventPublisher(configuration: configuration) { _ in }
        first.start()
        Self.publish(first, count: 12, from: 0, node: node)
        #expect(eventually { first.statistics.outboxPending == 12 })
        let undelivered = try #require(first.stop(deadline: StopDeadline()))
        #expect(undelivered.kept == 12)
        #expect(MQTTUndeliveredReport.sentence(broker: configuration.broker, senders: ["camera hall"], undelivered)
            .hasSuffix("; 12 events kept in the outbox for the next start"))

        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.camera + "/events"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.camera + "/events")
        let second = try MQTTEventPublisher(configuration: configuration) { _ in }
        second.start()
        Self.publish(second, count: 3, from: 12, node: node)
        let ids = (1...15).map { "\(node)/hall/\($0)" }
        #expect(live.wait(timeout: 60) { $0.filter { $0.payload.hasPrefix("{\"id\":") }.count >= 15 })
        #expect(second.stop(deadline: StopDeadline()) == nil)
        live.stop()
        let events = live.messages.filter { $0.topic == Self.camera + "/events" && $0.payload != "probe" }
        #expect(events.compactMap { $0.json?["id"] as? String } == ids)
        // The id is the line's first key; the rest is the line as it was.
        let line = try #require(events.first?.payload)
        #expect(line.hasPrefix("{\"id\":\"\(node)/hall/1\",\"version\":1,"))
        let check = try schemaCheck(events.map(\.payload))
        #expect(check.status == 0, "\(check.message)")
        let statistics = second.statistics
        #expect(statistics.outboxPending == 0)
        #expect(statistics.outboxDropped == 0)
    }

    /// Past its size bound the outbox drops the oldest events, says so once, never grows past it,
    /// and what it kept arrives in order, up to the newest.
    @Test func theOutboxAtItsBoundDropsTheOldestWithAWarning() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        var configuration = try Self.configuration(broker, state: state.path, node: "full")
        let limits = OutboxLimits(maximumBytes: 64 << 10)
        configuration.outbox?.limits = limits
        let warnings = Locked<[String]>([])
        let first = try MQTTEventPublisher(configuration: configuration) { line in warnings.withLock { $0.append(line) } }
        first.start()
        Self.publish(first, count: 400, from: 0, node: "full")
        #expect(eventually { first.statistics.outboxPending + first.statistics.outboxDropped == 400 })
        let statistics = first.statistics
        #expect(statistics.outboxDropped > 0)
        #expect(statistics.dropped == statistics.outboxDropped)
        #expect(statistics.outboxBytes <= limits.maximumBytes)
        let directory = state.path + "/outbox/full-hall"
        let drops = warnings.withLock { $0.filter { $0.contains("outbox \(directory) full (65536 bytes); dropped the oldest events") } }
        #expect(drops.count == 1)
        #expect(first.stop(deadline: StopDeadline())?.kept == statistics.outboxPending)

        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.camera + "/events"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.camera + "/events")
        let second = try MQTTEventPublisher(configuration: configuration) { _ in }
        second.start()
        let kept = statistics.outboxPending
        // 64 KiB holds about two hundred of these lines.
        try #require(kept > 100 && kept < 400)
        #expect(live.wait(timeout: 60) { $0.filter { $0.payload.hasPrefix("{\"id\":") }.count >= kept })
        #expect(second.stop(deadline: StopDeadline()) == nil)
        live.stop()
        let ids = live.messages.compactMap { $0.json?["id"] as? String }
        #expect(ids == ((400 - kept + 1)...400).map { "full/hall/\($0)" })
    }

    @Test func aSecondPublisherOnTheSameOutboxIsRefused() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        let configuration = try Self.configuration(broker, state: state.path, node: "outbox-twice")
        let first = try MQTTEventPublisher(configuration: configuration) { _ in }
        let directory = state.path + "/outbox/outbox-twice-hall"
        #expect(throws: MQTTError.outbox(.inUse(directory: directory))) {
            try MQTTEventPublisher(configuration: configuration) { _ in }
        }
        first.start()
        _ = first.stop(deadline: StopDeadline())
        // Stopped, it lets go of the lock.
        let again = try MQTTEventPublisher(configuration: configuration) { _ in }
        _ = again.stop(deadline: StopDeadline())
    }

    /// Without an outbox (a library user who configures none), events wait in memory, bounded:
    /// the oldest dropped with a warning.
    @Test func withoutAnOutboxTheMemoryQueueDropsTheOldestWithAWarning() throws {
        // A persistent session: the restarted broker keeps what arrives for it while it is away.
        let (broker, live) = try Subscriber.onStoppedBroker(topics: [Self.camera + "/events"], probe: Self.camera + "/events",
                                                            sessionID: "outbox-bounded-\(UUID().uuidString.prefix(8))")
        var configuration = try Self.configuration(broker, state: "/nonexistent", node: "bounded")
        configuration.outbox = nil
        configuration.queueCapacity = 2
        let warnings = Locked<[String]>([])
        let publisher = try MQTTEventPublisher(configuration: configuration) { line in warnings.withLock { $0.append(line) } }
        publisher.start()
        Self.publish(publisher, count: 3, from: 0, node: "bounded")
        #expect(eventually { warnings.withLock { $0.contains { $0.contains("event queue full (2); dropped the oldest, 1 dropped so far") } } })
        #expect(publisher.statistics.dropped == 1)
        try broker.start()
        #expect(live.wait(timeout: 60) { $0.filter { $0.payload.hasPrefix("{\"id\":") }.count == 2 })
        #expect(publisher.stop(deadline: StopDeadline()) == nil)
        live.stop()
        // The first (present at 0 s) was dropped; the two that arrive are the newest, in order.
        let events = live.messages.compactMap(\.json)
        #expect(events.map { $0["kind"] as? String } == ["presence", "presence"])
        #expect(events.compactMap { $0["pts"] as? Double } == [1, 2])
    }

    /// The publisher sends an event's line as the pipeline made it, id and all (without its
    /// newline): the same bytes as standard output, hooks and the event stream.
    @Test func eventLinesGoOutAsTheyAreGiven() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.camera + "/events"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.camera + "/events")
        var configuration = try Self.configuration(broker, state: "/nonexistent", node: "memory")
        configuration.outbox = nil
        let publisher = try MQTTEventPublisher(configuration: configuration) { _ in }
        publisher.start()
        var encoder = EventLineEncoder(source: "hall.mjpeg", camera: "hall")
        let lines = (0..<2).map { index in
            let event = Self.presence(index == 0, at: Double(index))
            let line = encoder.encode(event, id: "memory/hall/\(index + 7)")
            publisher.publish(event, line: line)
            return String(decoding: line.dropLast(), as: UTF8.self)
        }
        #expect(live.wait(timeout: 60) { $0.filter { $0.payload.hasPrefix("{\"id\":") }.count == 2 })
        #expect(publisher.stop(deadline: StopDeadline()) == nil)
        live.stop()
        #expect(live.messages.filter { $0.topic == Self.camera + "/events" && $0.payload != "probe" }.map(\.payload) == lines)
        #expect(lines.first?.hasPrefix("{\"id\":\"memory/hall/7\",\"version\":1,") == true)
    }
}
