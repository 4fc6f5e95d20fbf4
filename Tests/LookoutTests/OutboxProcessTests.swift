import Foundation
import Testing

/// The outbox through the `lookout` command: a process killed with SIGKILL while the broker is
/// down loses no event, a second process on the same state directory is refused before it
/// connects, and a state directory that cannot be made is one sentence and exit 73.
@Suite("Outbox, lookout process", .serialized)
struct OutboxProcessTests {
    static let prefix = "lookout-outbox-run"

    /// Lookout reading the code clip from standard input (three code events a pass, as in
    /// MQTTTests), its outbox in `state`.
    static func run(_ broker: MQTTBroker, node: String, state: String) throws -> BackgroundProcess {
        try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--dedupe", "300ms", "--events", "changes",
                                              "--code-scan-rate", "0", "--mqtt", "\(broker.url)/\(prefix)", "--mqtt-client-id", node,
                                              "--state-dir", state], withInput: true)
    }

    /// A running broker and a subscriber already subscribed to camera cam's events topic.
    static func brokerWithSubscriber() throws -> (MQTTBroker, Subscriber, String) {
        let broker = try MQTTBroker()
        try broker.start()
        let topic = prefix + "/cam/events"
        let live = try Subscriber(port: broker.port, topics: [topic])
        try live.waitUntilSubscribed(port: broker.port, topic: topic)
        return (broker, live, topic)
    }

    /// Code events in the outbox's files (their payloads are kept as they will be sent).
    static func journalledCodeEvents(_ directory: String) -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasPrefix("segment-") }.reduce(0) { count, name in
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))) ?? Data()
            return count + String(decoding: bytes, as: UTF8.self).components(separatedBy: "\"kind\":\"code\"").count - 1
        }
    }

    @Test func eventsOfAKilledLookoutArriveAfterItsRestartInOrder() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        let node = "kill-\(UUID().uuidString.prefix(8))"
        let clip = try MQTTTests.codeClip()

        // The broker is down: six code events go to the outbox, then Lookout is killed.
        let first = try Self.run(broker, node: node, state: state.path)
        try first.write(clip)
        try first.write(clip)
        #expect(eventually { Self.journalledCodeEvents(state.path + "/outbox/\(node)-cam") == 6 })
        first.signal(SIGKILL)
        #expect(first.waitForExit() == 128 + SIGKILL)

        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/cam/events"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/cam/events")
        let second = try Self.run(broker, node: node, state: state.path)
        try second.write(clip)
        let codes = { (messages: [ReceivedMessage]) in messages.compactMap(\.json).filter { $0["kind"] as? String == "code" } }
        #expect(live.wait(timeout: 60) { codes($0).count >= 9 })
        try second.closeInput()
        #expect(second.waitForExit(timeout: 60) == 0)
        live.stop()
        // The six kept arrive first with their ids; the restart numbers on past the block the
        // killed run had reserved: ids only grow, none repeats.
        let ids = codes(live.messages).compactMap { $0["id"] as? String }
        let numbers = ids.compactMap { $0.hasPrefix("\(node)/cam/") ? UInt64($0.split(separator: "/").last!) : nil }
        #expect(numbers.count == 9 && Array(numbers.prefix(6)) == Array(1...6), "\(ids)")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(ids)")
        #expect(second.errors.lines.contains { $0.contains("6 events of camera cam waiting in \(state.path)/outbox/\(node)-cam from before; delivered first") })
    }

    /// One event, one id: an event's line on standard output is its MQTT message (id first, the
    /// same bytes), and its hook hears the same id in LOOKOUT_EVENT_ID.
    @Test func anEventHasTheSameIDOnStandardOutputMQTTAndItsHook() throws {
        let (broker, live, topic) = try Self.brokerWithSubscriber()
        defer { live.stop() }
        let state = try ScratchFolder()
        let node = "same-\(UUID().uuidString.prefix(8))"
        let hook = try state.script("hook", #"printf '%s\n' "$LOOKOUT_EVENT_ID" >> "$OUT/ids""#)
        let process = try BackgroundProcess(lookoutBinary, [
            "run", "--input", "cam=-", "--fps", "10", "--dedupe", "300ms", "--events", "changes", "--code-scan-rate", "0",
            "--mqtt", "\(broker.url)/\(Self.prefix)", "--mqtt-client-id", node, "--state-dir", state.path + "/state", "--on-code", hook,
        ], environment: ["OUT": state.path], withInput: true)
        let clip = try MQTTTests.codeClip()
        for _ in 1...2 { try process.write(clip) }
        try process.closeInput()
        #expect(process.waitForExit(timeout: 60) == 0)
        let printed = process.output.lines.filter { $0.contains(#""kind":"code""#) }
        try #require(printed.count == 6, "\(process.output.lines)")
        #expect(live.wait(timeout: 60) { $0.filter { $0.topic == topic && $0.payload.contains(#""kind":"code""#) }.count >= 6 })
        let published = live.messages.filter { $0.topic == topic && $0.payload.contains(#""kind":"code""#) }.map(\.payload)
        #expect(published == printed)
        let ids = printed.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["id"] as? String }
        #expect(ids == (1...6).map { "\(node)/cam/\($0)" })
        #expect(eventually { Set(String(decoding: state.read("ids") ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)) == Set(ids) })
        // The numbers are kept for the next start, past the block this run reserved.
        let kept = try String(contentsOfFile: state.path + "/state/event-ids/\(node)-cam", encoding: .utf8)
        #expect(UInt64(kept.filter(\.isNumber)).map { $0 > 6 } == true, "\(kept)")
    }

    /// A camera whose outbox numbered its ids before the pipeline did (an upgrade: a journal
    /// folder, no event-ids file) begins its new series past any number the old one can have
    /// reached, so that consumers dropping seen ids drop none of the new ones.
    @Test func anUpgradedCameraNumbersPastTheIdsItsOutboxGave() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let state = try ScratchFolder()
        let node = "upgrade-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: state.path + "/outbox/\(node)-cam", withIntermediateDirectories: true)
        let before = UInt64(Date().timeIntervalSince1970 * 1000) - 1000
        let process = try Self.run(broker, node: node, state: state.path)
        try process.write(try MQTTTests.codeClip())
        try process.closeInput()
        #expect(process.waitForExit(timeout: 60) == 0)
        let numbers = process.output.lines.filter { $0.contains(#""kind":"code""#) }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["id"] as? String)?.split(separator: "/").last.flatMap { UInt64($0) } }
        #expect(numbers.count == 3 && numbers.allSatisfy { $0 >= before }, "\(numbers)")
    }

    /// The second process is refused before it makes any broker connection: its node would
    /// connect with the first's client ID and throw the first off the broker.
    @Test func aSecondLookoutOnTheSameStateDirectoryIsRefusedBeforeItConnects() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        try broker.start()
        let node = "twice-\(UUID().uuidString.prefix(8))"
        let availability = Self.prefix + "/available"
        let watcher = try Subscriber(port: broker.port, topics: [availability])
        defer { watcher.stop() }
        let first = try Self.run(broker, node: node, state: state.path)
        // The camera (and its connection) is made once its stream begins.
        try first.write(try MQTTTests.codeClip())
        #expect(eventually { Self.lockHeld(state.path + "/outbox/\(node)-cam/lock") })
        #expect(watcher.wait(timeout: 60) { $0.contains { $0.topic == availability && $0.payload == "online" } })

        let second = try lookout(["run", "--input", "cam=" + Fixtures.path("qr-mono.y4m"), "--mqtt", "\(broker.url)/\(Self.prefix)",
                                  "--mqtt-client-id", node, "--state-dir", state.path])
        #expect(second.status == 73)
        #expect(second.stderr == "lookout: another Lookout process uses the state directory \(state.path): give each process its own --state-dir\n")
        // A client connecting after the second ended: once the broker has logged it, it has
        // logged any connection the second made before.
        let probe = "probe-\(UUID().uuidString.prefix(8))"
        try BackgroundProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-i", probe, "-t", "x", "-m", "x"])
            .waitForExit(timeout: 60)
        #expect(eventually { broker.log.contains { $0.contains(" as \(probe) (") } }, "\(broker.log)")
        for client in [node, node + "-cam"] {
            #expect(broker.log.filter { $0.contains(" as \(client) (") }.count == 1, "one connection as \(client): \(broker.log)")
        }
        #expect(!broker.log.contains { $0.contains("already connected") }, "\(broker.log)")
        #expect(watcher.messages.filter { $0.topic == availability }.map(\.payload) == ["online"])

        try first.closeInput()
        #expect(first.waitForExit(timeout: 60) == 0)
        // The watcher sees the node go offline when it does.
        #expect(watcher.wait(timeout: 60) { $0.filter { $0.topic == availability }.map(\.payload) == ["online", "offline"] })
    }

    /// A state directory on a full disk (an 8 KB tmpfs in a mount namespace of its own: a page for
    /// the event numbering, one the journal fills within the first events): the events go out
    /// live from memory, and the trouble is said once, not once per event.
    @Test func aFullDiskIsSaidOnceAndTheEventsStillArrive() throws {
        let (broker, live, topic) = try Self.brokerWithSubscriber()
        defer { live.stop() }
        let state = try ScratchFolder()
        let node = "full-\(UUID().uuidString.prefix(8))"
        let process = try BackgroundProcess("/usr/bin/unshare", [
            "--mount", "/bin/sh", "-c", #"mount -t tmpfs -o size=8k lookout-test "$LOOKOUT_DIR" && exec "$0" "$@""#
                .replacingOccurrences(of: "$LOOKOUT_DIR", with: state.path),
            lookoutBinary, "run", "--input", "cam=-", "--fps", "10", "--dedupe", "300ms", "--events", "changes", "--code-scan-rate", "0",
            "--mqtt", "\(broker.url)/\(Self.prefix)", "--mqtt-client-id", node, "--state-dir", state.path,
        ], withInput: true)
        let clip = try MQTTTests.codeClip()
        for _ in 1...5 { try process.write(clip) }
        try process.closeInput()
        #expect(process.waitForExit(timeout: 60) == 0)
        try #require(!process.errors.lines.contains { $0.contains("mount:") || $0.contains("unshare:") },
                     "cannot mount a tmpfs here: \(process.errors.lines)")
        let codes = { (messages: [ReceivedMessage]) in messages.filter { $0.topic == topic }.compactMap(\.json).filter { $0["kind"] as? String == "code" } }
        #expect(live.wait(timeout: 60) { codes($0).count >= 15 })
        #expect(codes(live.messages).compactMap { $0["id"] as? String } == (1...15).map { "\(node)/cam/\($0)" })
        // The outbox's trouble, once (the event numbering, on the same disk, says its own once at most).
        let full = process.errors.lines.filter { $0.contains("No space left on device") && $0.contains("outbox") }
        #expect(process.errors.lines.filter { $0.contains("No space left on device") && $0.contains("event ids") }.count <= 1)
        #expect(full.count == 1, "said once: \(process.errors.lines)")
        #expect(full.first?.hasSuffix("events wait in memory until the outbox can be written again (lost if Lookout stops before they are delivered)") == true)
    }

    /// Whether another process holds the flock(2) on `path`.
    static func lockHeld(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }

    @Test func aStateDirectoryThatCannotBeMadeIsOneSentenceAndExit73() throws {
        let folder = try ScratchFolder()
        let file = folder.path + "/file"
        try Data().write(to: URL(fileURLWithPath: file))
        let result = try lookout(["run", "--input", Fixtures.path("qr-mono.y4m"), "--mqtt", "mqtt://127.0.0.1:1/x", "--state-dir", file + "/state"])
        #expect(result.status == 73)
        #expect(result.stderr == "lookout: cannot create the state directory \(file)/state: Not a directory\n")
        #expect(result.stdout.isEmpty)
    }
}
