import Foundation
import Lookout
import LookoutService
import Testing

/// A reload on a real broker: Home Assistant's discovery follows the cameras.
@Suite struct ServiceReloadMQTTTests {
    @Test func aRemovedCameraLeavesHomeAssistantAndAnAddedOneArrives() async throws {
        let broker = try MQTTBroker()
        try broker.start()
        defer { broker.stop() }
        let prefix = "reload-\(UUID().uuidString.prefix(8))"
        let clip = Fixtures.path("sample.mjpeg")
        let state = try ScratchFolder()
        func configuration(_ cameras: [String]) throws -> LookoutConfiguration {
            try ConfigurationFile.parse("""
                mqtt:
                  mqtt: \(broker.url)/\(prefix)
                  ha-discovery: true
                  state-dir: \(state.path)
                cameras:
                \(cameras.map { "  \($0):\n    input: \(clip)\n" }.joined())
                """, file: "mqtt.yml")
        }
        let node = MQTTConfiguration(broker: try MQTTBrokerAddress("\(broker.url)/\(prefix)"), clientID: "x")
        let discovery = { (camera: String) in HomeAssistantDiscovery(configuration: node.forCamera(camera)).presenceConfigTopic }
        let live = try Subscriber(port: broker.port, topics: ["homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: "homeassistant/probe")

        let service = try Service(configuration: try configuration(["kept", "gone"]), environment: Service.Environment(output: ServiceCollector()))
        try await service.start()
        #expect(live.wait(timeout: 60) { messages in
            ["kept", "gone"].allSatisfy { camera in messages.contains { $0.topic == discovery(camera) && !$0.payload.isEmpty } }
        })
        let report = try await service.reload(try configuration(["kept", "new"]))
        #expect(report.stopped == ["gone"] && report.started == ["new"] && report.unchanged == ["kept"])
        // The removed camera's entity is withdrawn (an empty retained config); the new one's arrives.
        #expect(live.wait(timeout: 60) { messages in
            messages.contains { $0.topic == discovery("gone") && $0.payload.isEmpty }
                && messages.contains { $0.topic == discovery("new") && !$0.payload.isEmpty }
        }, "\(live.messages.map { "\($0.topic) \($0.payload.prefix(20))" })")
        service.stop()
        _ = await service.run()
        await service.finish()
        live.stop()
        let retained = try Subscriber.retained(port: broker.port, topics: ["homeassistant/#"], probe: "homeassistant/probe")
        #expect(retained[discovery("gone")] == nil)
        #expect(retained[discovery("kept")]?.isEmpty == false)
        #expect(retained[discovery("new")]?.isEmpty == false)
    }
}
