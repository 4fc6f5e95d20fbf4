import Foundation
import Testing
@testable import Lookout

/// Home Assistant on a real mosquitto: entities exist from the start, come back after Home
/// Assistant restarts (its `homeassistant/status` says "online"), and each code read fires the
/// camera's device trigger with the value as the payload.
@Suite("Home Assistant restarts and device triggers, real broker", .serialized)
struct HomeAssistantRestartTests {
    static let prefix = "lookout-ha"
    static let camera = prefix + "/cam"

    static func discovery(_ broker: MQTTBroker) throws -> HomeAssistantDiscovery {
        let node = MQTTConfiguration(broker: try MQTTBrokerAddress("\(broker.url)/\(prefix)"), clientID: "x")
        return HomeAssistantDiscovery(configuration: node.forCamera("cam"))
    }

    static func count(_ messages: [ReceivedMessage], topic: String) -> Int {
        messages.filter { $0.topic == topic }.count
    }

    @Test func entitiesAppearBeforeAnyEventAndAreSentAgainWhenHomeAssistantIsBackOnline() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let discovery = try Self.discovery(broker)
        let configs = discovery.messages.map(\.topic)
        #expect(configs.count == 3 && configs.contains(discovery.codeScannedTriggerConfigTopic), "\(configs)")
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")
        // Standard input stays open after one blank frame: no event, for as long as the test wants.
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--events", "changes",
                                                        "--mqtt", "\(broker.url)/\(Self.prefix)", "--ha-discovery"], withInput: true)
        try run.write(Data("YUV4MPEG2 W160 H120 F10:1 C420jpeg\nFRAME\n".utf8)
                      + Data(repeating: 128, count: 160 * 120 * 3 / 2))
        #expect(live.wait(timeout: 60) { messages in configs.allSatisfy { Self.count(messages, topic: $0) == 1 } },
                "configs before any event: \(live.messages.map(\.topic))")
        #expect(live.wait(timeout: 60) { Self.count($0, topic: Self.camera + "/presence") == 1 })
        #expect(Self.count(live.messages, topic: Self.camera + "/events") == 0)

        // Home Assistant restarted: it says so, not retained, and gets every config and state again.
        let online = try BackgroundProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1",
                                                                     "-t", discovery.statusTopic, "-m", "online"])
        #expect(online.waitForExit() == 0)
        #expect(live.wait(timeout: 60) { messages in
            configs.allSatisfy { Self.count(messages, topic: $0) == 2 }
                && Self.count(messages, topic: Self.camera + "/presence") == 2
                && Self.count(messages, topic: Self.camera + "/available") == 2
        }, "after online: \(live.messages.map(\.topic))")
        // "offline" (Home Assistant stopping) changes nothing: after it, one more "online" brings
        // one more copy of each config, not two (both answers would come in order on the camera's
        // connection, the second after the first).
        for payload in ["offline", "online"] {
            let status = try BackgroundProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1",
                                                                         "-t", discovery.statusTopic, "-m", payload])
            #expect(status.waitForExit() == 0)
        }
        #expect(live.wait(timeout: 60) { messages in configs.allSatisfy { Self.count(messages, topic: $0) >= 3 } },
                "after offline and online: \(live.messages.map(\.topic))")
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe2")
        #expect(configs.allSatisfy { Self.count(live.messages, topic: $0) == 3 }, "after offline: \(live.messages.map(\.topic))")

        try run.closeInput()
        #expect(run.waitForExit() == 0, "\(run.errors.lines)")
        #expect(run.errors.lines.contains { $0.contains("Home Assistant is back online") }, "\(run.errors.lines)")
        live.stop()
    }

    @Test func eachCodeReadFiresTheCamerasDeviceTriggerWithItsValue() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let discovery = try Self.discovery(broker)
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("sample.mjpeg"), "--events", "changes", "-q",
                                  "--mqtt", "\(broker.url)/\(Self.prefix)", "--ha-discovery"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(live.wait(timeout: 60) { $0.contains { $0.topic == Self.prefix + "/available" && $0.payload == "offline" } })
        live.stop()
        let messages = live.messages

        let trigger = try #require(messages.first { $0.topic == discovery.codeScannedTriggerConfigTopic }?.json,
                                   "no trigger config on \(discovery.codeScannedTriggerConfigTopic)")
        #expect(trigger["automation_type"] as? String == "trigger")
        #expect(trigger["topic"] as? String == Self.camera + "/scan")
        #expect(trigger["type"] as? String == "scanned")
        #expect(trigger["subtype"] as? String == "Code")
        // The same device as the camera's entities, so the trigger is offered on that device.
        let presence = try #require(messages.first { $0.topic == discovery.presenceConfigTopic }?.json)
        let triggerDevice = (trigger["device"] as? [String: Any])?["identifiers"] as? [String]
        let presenceDevice = (presence["device"] as? [String: Any])?["identifiers"] as? [String]
        #expect(triggerDevice != nil && triggerDevice == presenceDevice, "\(String(describing: triggerDevice))")
        #expect(messages.first { $0.topic == discovery.codeScannedTriggerConfigTopic }?.retained == false) // live delivery

        // One trigger message per code event, its payload the value, never retained.
        let values = messages.filter { $0.topic == Self.camera + "/events" }.compactMap(\.json)
            .filter { $0["kind"] as? String == "code" }.compactMap { $0["value"] as? String }
        let scans = messages.filter { $0.topic == Self.camera + "/scan" }
        #expect(values.sorted() == ["4006381333931", "Lookout sample QR: été ✓"])
        #expect(scans.map(\.payload).sorted() == values.sorted())
        #expect(scans.allSatisfy { !$0.retained && $0.qos == 1 })
        let retained = try Subscriber.retained(port: broker.port, topics: [Self.camera + "/#"], probe: Self.camera + "/probe")
        #expect(retained[Self.camera + "/scan"] == nil)
        #expect(retained[Self.camera + "/code"] != nil)
    }
}
