import Foundation
import Testing

/// Lookout on a real three-node NATS cluster (JetStream and MQTT, from Debian's nats-server): a
/// broker node killed mid-run, every broker down while Lookout is killed and restarted, and the
/// outbox at its bound. Events are code reads from the recorded code clip on standard input, each
/// read an event (`--dedupe 0`); a QoS 1 subscriber with a persistent session, made before the run
/// and resumed on a node that stays up, must receive every event id Lookout produced.
@Suite("Failover on a NATS cluster", .serialized)
struct ClusterFailoverTests {
    static let prefix = "fabric-test"
    static let eventsTopic = prefix + "/cam/events"
    static let probeTopic = prefix + "/probe"

    /// A persistent session (clean session off) subscribed at QoS 1 to the camera's events, made on
    /// `node` and left: from now on the cluster keeps the events for it while it is away. Its ID.
    static func makeSession(on cluster: NATSCluster, node: Int) throws -> String {
        let id = "fabric-sub-\(UUID().uuidString.prefix(8))"
        let subscriber = try Subscriber(port: cluster.nodes[node].mqttPort, topics: [eventsTopic, probeTopic], sessionID: id)
        try subscriber.waitUntilSubscribed(port: cluster.nodes[node].mqttPort, topic: probeTopic)
        subscriber.stop()
        return id
    }

    /// A cluster started, a state directory for Lookout, and a session made on node `sessionOn`.
    static func fabric(sessionOn node: Int) throws -> (NATSCluster, ScratchFolder, String) {
        let cluster = try NATSCluster()
        try cluster.start()
        return (cluster, try ScratchFolder(), try makeSession(on: cluster, node: node))
    }

    /// The session `id` taken up again on `node`: what was kept for it arrives first.
    static func resumeSession(_ id: String, on cluster: NATSCluster, node: Int) throws -> Subscriber {
        try Subscriber(port: cluster.nodes[node].mqttPort, topics: [eventsTopic, probeTopic], sessionID: id)
    }

    /// The event ids received, in order of arrival, duplicates included.
    static func receivedIDs(_ subscriber: Subscriber) -> [String] {
        subscriber.messages.filter { $0.topic == eventsTopic }.compactMap { $0.json?["id"] as? String }
    }

    /// Each id's sequence, in order of first arrival; nil when an id is not `<node>/cam/<sequence>`.
    static func firstSequences(_ ids: [String], node: String) -> [Int]? {
        var seen = Set<String>(), sequences: [Int] = []
        for id in ids where seen.insert(id).inserted {
            guard id.hasPrefix(node + "/cam/"), let sequence = Int(id.dropFirst(node.count + 5)) else { return nil }
            sequences.append(sequence)
        }
        return sequences
    }

    /// Every event of each run arrived: as many distinct ids as the runs made, each run's one
    /// sequence after another without a gap, a later run's after an earlier one's (at-least-once:
    /// an id may come twice). A restarted run goes on from the journal; a run after a crash of
    /// the machine may skip numbers, which is no loss: only the runs' own blocks must be whole.
    static func allArrived(_ ids: [String], produced runs: [Int], node: String) -> Bool {
        guard let sequences = firstSequences(ids, node: node), !sequences.isEmpty, runs.allSatisfy({ $0 > 0 }) else { return false }
        var blocks: [Int] = []
        var previous: Int?
        for sequence in sequences.sorted() {
            if let previous, sequence == previous + 1 { blocks[blocks.count - 1] += 1 } else { blocks.append(1) }
            previous = sequence
        }
        return blocks == [runs.reduce(0, +)] || blocks == runs
    }

    static func allArrived(_ ids: [String], produced: Int, node: String) -> Bool {
        allArrived(ids, produced: [produced], node: node)
    }

    @Test func theBrokerLookoutUsesIsKilledAndASubscriberElsewhereGetsEveryEvent() throws {
        let (cluster, state, session) = try Self.fabric(sessionOn: 2)
        let node = CodeNode(clientID: "fabric-a")
        let lookout = try node.start(brokers: cluster.brokerList(prefix: Self.prefix), stateDirectory: state.path, passes: 1)
        defer { lookout.process.signal(SIGKILL) }

        // Lookout publishes through one node; the subscriber resumes its session on another.
        var used: Int?
        #expect(eventually(timeout: 60, every: 0.2) { used = cluster.node(holding: node.cameraClientID); return used != nil }, "\(cluster.logs)")
        let killed = try #require(used)
        let survivor = (killed + 1) % cluster.nodes.count
        let subscriber = try Self.resumeSession(session, on: cluster, node: survivor)
        defer { subscriber.stop() }
        #expect(subscriber.wait(timeout: 60) { _ in !Self.receivedIDs(subscriber).isEmpty }, "no event arrived: \(lookout.process.errors.lines)")

        // Killed mid-run, with more events coming: Lookout fails over to another node.
        cluster.kill(killed)
        try lookout.feed(passes: 3)
        // Settled on a broker of the fabric: the one the brokers list the camera's connection on is
        // the one its status names (a broker may list a CONNECT it then refuses while JetStream
        // elects new leaders; Lookout then goes on to the next).
        var broker = "", now: Int?
        func names(_ index: Int) -> Bool { broker == cluster.nodes[index].url || broker.hasPrefix(cluster.nodes[index].url + "/") }
        #expect(eventually(timeout: 120, every: 0.2) {
            broker = lookout.statistics()?["broker"] as? String ?? ""
            now = cluster.node(holding: node.cameraClientID)
            return now.map(names) ?? false
        }, "status names \(broker), the brokers list it on \(String(describing: now)): \(lookout.process.errors.lines.suffix(10))")
        #expect(!broker.isEmpty && !names(killed), "status names \(broker), the killed broker")

        #expect(subscriber.wait(timeout: 120) { _ in
            Self.allArrived(Self.receivedIDs(subscriber), produced: lookout.events.count, node: node.clientID)
        }, "\(lookout.events.count) events produced; received \(Self.receivedIDs(subscriber))")
        #expect(lookout.finish() == 0, "\(lookout.process.errors.lines.suffix(10))")
        // Every event the run wrote, now that its output is complete.
        let produced = lookout.events.count
        #expect(subscriber.wait(timeout: 60) { _ in Self.allArrived(Self.receivedIDs(subscriber), produced: produced, node: node.clientID) },
                "\(produced) events produced; received \(Self.receivedIDs(subscriber))")
    }

    @Test func everyBrokerDownAndLookoutKilledAndRestartedLosesNothing() throws {
        let (cluster, state, session) = try Self.fabric(sessionOn: 0)
        let node = CodeNode(clientID: "fabric-b")
        let brokers = cluster.brokerList(prefix: Self.prefix)

        // Brokers up: events flow, and the session takes them as they come. Then every broker
        // down: events are kept in the outbox.
        let first = try node.start(brokers: brokers, stateDirectory: state.path, passes: 1)
        defer { first.process.signal(SIGKILL) }
        #expect(eventually(timeout: 60, every: 0.2) { (first.statistics()?["acknowledged"] as? Int ?? 0) > 0 }, "nothing acknowledged")
        // What an acknowledged message survives is the broker's promise (replicas, on separate
        // machines); the test is of what Lookout keeps while no broker is there. NATS 2.9 does
        // not fsync each stored message: its three nodes, killed at once, and once even stopped
        // on a loaded machine, lost all 38 events they had acknowledged and held for the session
        // (ids 1 to 38, two CI runs). So the session receives them before the brokers go down.
        let early = try Self.resumeSession(session, on: cluster, node: 0)
        defer { early.stop() }
        #expect(eventually(timeout: 120, every: 0.2) {
            let produced = first.events.count
            return produced > 0 && (first.statistics()?["acknowledged"] as? Int ?? 0) >= produced
                && Set(Self.receivedIDs(early)).count >= produced
        }, "\(first.events.count) events produced; received before the outage \(Self.receivedIDs(early))")
        early.stop()
        cluster.stop()
        try first.feed(passes: 2, marker: .sampleFrame)
        // On disk before the kill: the newest event (the sample frame's EAN-13) is in the journal.
        #expect(eventually(timeout: 60) { node.journal(in: state.path, holds: "4006381333931") },
                "the journal at \(state.path)/outbox never held the last event")
        first.process.signal(SIGKILL)
        first.process.waitForExit()
        let producedBefore = first.events.count

        // Restarted while every broker is still down: more events, after the kept ones.
        let second = try node.start(brokers: brokers, stateDirectory: state.path, passes: 1)
        defer { second.process.signal(SIGKILL) }
        try cluster.start()

        let subscriber = try Self.resumeSession(session, on: cluster, node: 1)
        defer { subscriber.stop() }
        // The session's events: those it took before the outage, then those after.
        let received = { Self.receivedIDs(early) + Self.receivedIDs(subscriber) }
        #expect(subscriber.wait(timeout: 180) { _ in
            Self.allArrived(received(), produced: [producedBefore, second.events.count], node: node.clientID)
        }, "\(producedBefore) + \(second.events.count) events produced; received \(received())")
        #expect(second.finish() == 0, "\(second.process.errors.lines.suffix(10))")
        let produced = [producedBefore, second.events.count]
        #expect(subscriber.wait(timeout: 60) { _ in Self.allArrived(received(), produced: produced, node: node.clientID) },
                "\(produced) events produced; received \(received())")
        // In order per camera: each id first arrives after every id before it.
        let sequences = try #require(Self.firstSequences(received(), node: node.clientID))
        #expect(!sequences.isEmpty && sequences == sequences.sorted(), "out of order: \(sequences)")
        // The same payloads in the same order as Lookout wrote them: the kept events are the real ones.
        let values = (early.messages + subscriber.messages).filter { $0.topic == Self.eventsTopic }.compactMap(\.json)
            .reduce(into: (seen: Set<String>(), values: [String]())) { result, event in
                if let id = event["id"] as? String, result.seen.insert(id).inserted { result.values.append(event["value"] as? String ?? "") }
            }.values
        #expect(values == (first.events + second.events).map { $0["value"] as? String ?? "" })
    }

    @Test func theOutboxAtItsBoundDropsTheOldestAndDeliversTheRest() throws {
        let (cluster, state, session) = try Self.fabric(sessionOn: 0)
        cluster.killAll()
        let node = CodeNode(clientID: "fabric-c")
        // The smallest bound, 1 MiB: each code event is some 700 bytes in the journal, so it holds
        // about 1,500 of the 35 a pass of the clip makes.
        let bound = 1 << 20
        let lookout = try node.start(brokers: cluster.brokerList(prefix: Self.prefix), stateDirectory: state.path, passes: 60,
                                     options: ["--outbox-max-size", "1M"])
        defer { lookout.process.signal(SIGKILL) }
        #expect(lookout.process.errors.wait(timeout: 60) { $0.contains { $0.contains("dropped the oldest events") } },
                "no warning of dropped events: \(lookout.process.errors.lines.suffix(10))")
        let onDisk = try node.journalBytes(in: state.path)
        #expect(onDisk > 0 && onDisk <= bound, "the journal holds \(onDisk) bytes, bound \(bound)")

        try cluster.start()
        let subscriber = try Self.resumeSession(session, on: cluster, node: 2)
        defer { subscriber.stop() }
        // The newest events, every one of them: as many as were not dropped, without a gap, up to
        // the last one made (the marker's). What was made and dropped is read as it stands.
        var produced = 0, dropped = 0
        #expect(subscriber.wait(timeout: 120) { _ in
            produced = lookout.events.count
            dropped = lookout.statistics()?["outbox_dropped"] as? Int ?? 0
            return dropped > 0 && Self.allArrived(Self.receivedIDs(subscriber), produced: produced - dropped, node: node.clientID)
        }, "\(produced) events produced, \(dropped) dropped; received \(Self.receivedIDs(subscriber))")
        #expect(lookout.finish() == 0)
        #expect(dropped > 0 && dropped < produced, "\(dropped) of \(produced) dropped")
        let values = subscriber.messages.filter { $0.topic == Self.eventsTopic }.compactMap { $0.json?["value"] as? String }
        #expect(values.last == lookout.events.last?["value"] as? String, "the newest event was not delivered")
        #expect(Set(Self.receivedIDs(subscriber)).count == lookout.events.count - dropped)
    }
}

/// A Lookout node with one camera, `cam`, read from standard input, publishing to a fabric; every
/// code read is an event.
struct CodeNode {
    let clientID: String
    /// The camera connection's client ID, as brokers list it.
    var cameraClientID: String { clientID + "-cam" }

    /// The recorded code clip: 80 frames, a QR code coming and going.
    static let codeClip = "events-codes.mjpeg"

    /// What ends a feed: a clip with a code of its own. Once Lookout has written that code's
    /// event, every frame before it has been analysed and its events written.
    enum Marker {
        /// The shell-quoting QR code's clip.
        case shell
        /// The sample's first frame: its QR code, then its EAN-13.
        case sampleFrame

        var file: String { self == .shell ? "qr-shell.mjpeg" : "frame0.jpg" }

        func matches(_ event: [String: Any]) -> Bool {
            let value = event["value"] as? String ?? ""
            return self == .shell ? value.contains("rm -rf ~") : value == "4006381333931"
        }
    }

    /// Starts Lookout and feeds it `passes` of the code clip and `marker` (a live input: Lookout
    /// reads it as it comes and waits for more), with the web server on for its status.
    func start(brokers: String, stateDirectory: String, passes: Int, marker: Marker = .shell,
               options: [String] = []) throws -> Run {
        let (process, base) = try startLookoutWithHTTP(
            ["--input", "cam=-", "--fps", "10", "--dedupe", "0", "--events", "changes", "--code-scan-rate", "0",
             "--mqtt", brokers, "--mqtt-client-id", clientID, "--state-dir", stateDirectory] + options,
            withInput: true, input: try Run.clips(passes: passes, marker: marker))
        let run = Run(process: process, base: base)
        try run.waitFor(marker, before: 0)
        return run
    }

    /// The camera's outbox journal: `<state directory>/outbox/<camera client ID>`.
    func journalDirectory(in stateDirectory: String) -> String { stateDirectory + "/outbox/" + cameraClientID }

    /// The bytes of the camera's outbox journal files.
    func journalBytes(in stateDirectory: String) throws -> Int {
        let directory = journalDirectory(in: stateDirectory)
        return try FileManager.default.contentsOfDirectory(atPath: directory).reduce(0) { total, file in
            total + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.size] as? Int) ?? 0)
        }
    }

    /// Whether the camera's outbox journal files hold `text` (a record keeps its payload's bytes).
    func journal(in stateDirectory: String, holds text: String) -> Bool {
        let directory = journalDirectory(in: stateDirectory)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.contains { file in
            (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))?.range(of: Data(text.utf8)) != nil
        }
    }

    final class Run {
        let process: BackgroundProcess
        /// The web server's base URL.
        let base: String

        init(process: BackgroundProcess, base: String) {
            self.process = process
            self.base = base
        }

        static func clips(passes: Int, marker: Marker) throws -> Data {
            var data = Data()
            for _ in 0..<passes { data += try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(CodeNode.codeClip))) }
            return data + (try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(marker.file))))
        }

        /// The event lines written so far.
        var events: [[String: Any]] {
            process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["kind"] as? String != "stats" }
        }

        /// Writes `passes` of the code clip, then `marker`, and returns once the marker's code has
        /// been read.
        func feed(passes: Int, marker: Marker = .shell) throws {
            let before = events.filter(marker.matches).count
            try process.write(try Self.clips(passes: passes, marker: marker))
            try waitFor(marker, before: before)
        }

        fileprivate func waitFor(_ marker: Marker, before: Int) throws {
            let read = process.output.wait(timeout: 120) { _ in events.filter(marker.matches).count > before }
            try #require(read, "the marker \(marker.file) was never read: \(process.errors.lines.suffix(10))")
        }

        /// The camera's `mqtt` statistics now (`/api/status`).
        func statistics() -> [String: Any]? {
            (try? httpGet(base + "/api/status"))?.json?["mqtt"] as? [String: Any]
        }

        /// Ends the input and stops Lookout as a service manager would (SIGTERM: it delivers what
        /// it can within its stop bound, and exits); its exit status. With the web server on, the
        /// run stays up after its input ends until asked to stop.
        func finish() -> Int32 {
            try? process.closeInput()
            let ended = process.errors.wait(timeout: 60) { $0.contains { $0.contains("input ended") } }
            #expect(ended, "the input never ended: \(process.errors.lines.suffix(10))")
            process.signal(SIGTERM)
            return process.waitForExit(timeout: 60)
        }
    }
}
