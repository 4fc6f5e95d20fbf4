import Foundation
import Testing
@testable import Lookout

/// Several Lookout processes (nodes) on one real mosquitto broker, each with its own prefix and
/// (default, per-process) client ID, as a fleet runs.
@Suite("A fleet on one broker", .serialized)
struct FleetTests {
    @Test func twoNodesShareABrokerAndKillingOneTurnsOnlyItsTopicsOffline() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let all = try Subscriber(port: broker.port, topics: ["fleet-a/#", "fleet-b/#", "homeassistant/#"])
        try all.waitUntilSubscribed(port: broker.port, topic: "fleet-a/probe")
        // Node A: a live camera (standard input, kept open) and a file; node B: a live camera
        // with the same name as A's. Both until killed.
        let nodeA = try BackgroundProcess(lookoutBinary, ["run", "-i", "front=-", "-i", "shelf=" + Fixtures.path("sample.mjpeg"),
                                                          "--fps", "10", "--events", "changes", "-q",
                                                          "--mqtt", "\(broker.url)/fleet-a", "--ha-discovery"], withInput: true)
        defer { nodeA.signal(SIGKILL) }
        let nodeB = try BackgroundProcess(lookoutBinary, ["run", "-i", "front=-", "--fps", "10", "--events", "changes", "-q",
                                                          "--mqtt", "\(broker.url)/fleet-b", "--ha-discovery"], withInput: true)
        defer { nodeB.signal(SIGKILL) }
        let clip = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("events-codes.mjpeg")))
        /// Writes the clip to a node's standard input; a node that went away says why.
        func feed(_ node: BackgroundProcess, _ name: String) throws {
            do { try node.write(clip) } catch {
                _ = node.waitForExit(timeout: 10)
                Issue.record("node \(name) took no input (\(error)): \(node.errors.lines)")
                throw error
            }
        }
        try feed(nodeA, "A")
        try feed(nodeB, "B")

        func latest(_ messages: [ReceivedMessage]) -> [String: String] {
            Dictionary(messages.map { ($0.topic, $0.payload) }) { $1 }
        }
        let online = ["fleet-a/available", "fleet-a/front/available", "fleet-a/shelf/available",
                      "fleet-b/available", "fleet-b/front/available"]
        #expect(all.wait(timeout: 60) { messages in
            let state = latest(messages)
            return online.allSatisfy { state[$0] == "online" }
                && messages.contains { $0.topic == "fleet-a/front/events" } && messages.contains { $0.topic == "fleet-b/front/events" }
        }, "\(latest(all.messages).filter { $0.key.hasSuffix("available") })")
        // No topic collides: each node's under its own prefix, one HA device per camera.
        let configs = all.messages.filter { $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") }
        let devices = Set(configs.compactMap { $0.json?["device"] as? [String: Any] }.compactMap { ($0["identifiers"] as? [String])?.first })
        #expect(devices == ["lookout_fleet-a_front", "lookout_fleet-a_shelf", "lookout_fleet-b_front"])
        #expect(Set(configs.map(\.topic)).count == 9, "a presence and a last-code sensor and a code trigger per camera")
        let beforeKill = all.messages.count

        nodeA.signal(SIGKILL)
        nodeA.waitForExit()
        // The broker publishes node A's wills (after 1.5 keep-alives at most: its sockets closed at once).
        let offline = ["fleet-a/available", "fleet-a/front/available", "fleet-a/shelf/available"]
        #expect(all.wait(timeout: 60) { messages in
            let state = latest(messages)
            return offline.allSatisfy { state[$0] == "offline" }
        }, "\(latest(all.messages).filter { $0.key.hasSuffix("available") })")
        // Node B goes on: still online, still publishing. The clip again: its code at 14 s is a
        // new event (at 8 s it was still in view for the 2 s window), frame 140.
        func codeFrames(_ messages: [ReceivedMessage]) -> [Int] {
            messages.filter { $0.topic == "fleet-b/front/events" }.compactMap { $0.json }
                .filter { $0["kind"] as? String == "code" }.compactMap { $0["frame"] as? Int }
        }
        try feed(nodeB, "B")
        #expect(all.wait(timeout: 60) { codeFrames($0) == [0, 60, 140] }, "\(codeFrames(all.messages))")
        let after = all.messages.dropFirst(beforeKill)
        #expect(!after.contains { $0.topic.hasPrefix("fleet-b/") && $0.payload == "offline" }, "node B was touched")
        #expect(latest(all.messages)["fleet-b/available"] == "online" && latest(all.messages)["fleet-b/front/available"] == "online")
        all.stop()
    }
}
