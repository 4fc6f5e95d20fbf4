import Foundation
import Testing
@testable import Lookout

/// Zones' presence on a real mosquitto broker: a retained topic per zone and a Home Assistant
/// sensor for each, published by the library's node and camera sink (no process of Lookout's).
@Suite("Zones on MQTT", .serialized)
struct ZoneMQTTTests {
    static let prefix = "lookout-zones"
    static let camera = prefix + "/hall"

    static func presence(_ isPresent: Bool, zone: String?, at seconds: Double) -> DetectionEvent {
        let frame = AnalysedFrame(sequence: UInt64(seconds * 10), presentationTime: MediaTime(seconds: seconds),
                                  wallClockTime: .now(), width: 640, height: 360)
        return .presence(PresenceChange(isPresent: isPresent, faceCount: isPresent ? 1 : 0, lastSeen: nil,
                                        reason: isPresent ? nil : .timeout, frame: frame, zone: zone))
    }

    @Test func eachZoneHasARetainedPresenceTopicAndASensor() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")

        var configuration = MQTTConfiguration(broker: try MQTTBrokerAddress("\(broker.url)/\(Self.prefix)"), clientID: "zones")
        configuration.homeAssistantDiscoveryPrefix = "homeassistant"
        let node = try MQTTNode(configuration: configuration) { _ in }
        let sink = try node.makeSink(camera: "hall", zones: ["door", "sofa"])
        // Connected, with the first state out: events now each go out (state queued while away is
        // only the newest per topic).
        #expect(live.wait(timeout: 60) { $0.contains { $0.topic == Self.camera + "/zone/sofa/presence" } })
        var encoder = EventLineEncoder(source: "hall.mjpeg", camera: "hall")
        for event in [Self.presence(true, zone: nil, at: 1), Self.presence(true, zone: "door", at: 1),
                      Self.presence(false, zone: "door", at: 3)] {
            sink.consume(PipelineOutput(events: [EmittedEvent(event: event, line: encoder.encode(event))], frame: event.frame))
        }
        #expect(live.wait(timeout: 60) { $0.filter { $0.topic == Self.camera + "/zone/door/presence" }.count == 3 })
        sink.finish()
        node.stop()
        #expect(live.wait(timeout: 60) { $0.contains { $0.topic == Self.prefix + "/available" && $0.payload == "offline" } })
        live.stop()
        let messages = live.messages

        // Every zone starts OFF; the door's follows its events, the camera's its own.
        #expect(messages.filter { $0.topic == Self.camera + "/zone/door/presence" }.map(\.payload) == ["OFF", "ON", "OFF"])
        #expect(messages.filter { $0.topic == Self.camera + "/zone/sofa/presence" }.map(\.payload) == ["OFF"])
        #expect(messages.filter { $0.topic == Self.camera + "/presence" }.map(\.payload) == ["OFF", "ON"])
        let events = messages.filter { $0.topic == Self.camera + "/events" }.compactMap(\.json)
        #expect(events.map { $0["zone"] as? String ?? "camera" } == ["camera", "door", "door"])

        // Retained for a late subscriber: the zones' state and one binary sensor per zone.
        let retained = try Subscriber.retained(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"],
                                               probe: Self.prefix + "/probe")
        #expect(retained[Self.camera + "/zone/door/presence"] == "OFF")
        #expect(retained[Self.camera + "/zone/sofa/presence"] == "OFF")
        let discovery = HomeAssistantDiscovery(configuration: configuration.forCamera("hall", zones: ["door", "sofa"]))
        #expect(discovery.zonePresenceConfigTopic("door") == "homeassistant/binary_sensor/lookout-zones_hall/zone_door_presence/config")
        for zone in ["door", "sofa"] {
            let topic = discovery.zonePresenceConfigTopic(zone)
            let config = try #require(retained[topic].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                                      "no config on \(topic)")
            #expect(config["state_topic"] as? String == Self.camera + "/zone/\(zone)/presence")
            #expect(config["device_class"] as? String == "occupancy")
            #expect(config["name"] as? String == "Presence \(zone)")
            #expect(config["unique_id"] as? String == "lookout_lookout-zones_hall_zone_\(zone)_presence")
        }
        #expect(retained[discovery.presenceConfigTopic] != nil)
    }
}
