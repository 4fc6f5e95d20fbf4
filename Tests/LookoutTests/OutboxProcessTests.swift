import Foundation
import Testing

/// The outbox through the `lookout` command: a process killed with SIGKILL while the broker is
/// down loses no event, and a state directory that cannot be made is one sentence and exit 73.
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
        #expect(codes(live.messages).compactMap { $0["id"] as? String } == (1...9).map { "\(node)/cam/\($0)" })
        #expect(second.errors.lines.contains { $0.contains("6 events of camera cam waiting in \(state.path)/outbox/\(node)-cam from before; delivered first") })
    }

    @Test func aSecondLookoutOnTheSameOutboxIsRefusedInOneSentence() throws {
        let broker = try MQTTBroker()
        let state = try ScratchFolder()
        try broker.start()
        let node = "twice-\(UUID().uuidString.prefix(8))"
        let first = try Self.run(broker, node: node, state: state.path)
        // The camera (and its connection) is made once its stream begins.
        try first.write(try MQTTTests.codeClip())
        #expect(eventually { Self.lockHeld(state.path + "/outbox/\(node)-cam/lock") })
        let second = try lookout(["run", "--input", "cam=" + Fixtures.path("qr-mono.y4m"), "--mqtt", "\(broker.url)/\(Self.prefix)",
                                  "--mqtt-client-id", node, "--state-dir", state.path])
        #expect(second.status == 73)
        // Its last line (the two nodes' own connections, sharing a client ID, may throw each other
        // off the broker before it).
        #expect(second.stderr.split(separator: "\n").last
                == "lookout: another Lookout process uses \(state.path)/outbox/\(node)-cam: give each its own --mqtt-client-id or --state-dir")
        try first.closeInput()
        #expect(first.waitForExit(timeout: 60) == 0)
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
