/// Home Assistant MQTT discovery: retained config messages that make, for each camera, a device
/// with a presence binary sensor (device class occupancy), one more for each zone, a last-code
/// sensor, and a device trigger (each code read, its value as the payload) for automations built
/// in Home Assistant's editor; the entities are wired to the camera's and the node's availability
/// topics so both show "unavailable" when the camera is lost or its Lookout is gone. Home
/// Assistant announces its restarts on `statusTopic`: each connection sends its availability, and
/// a camera's every config and state, again when it says "online" (`HomeAssistantStatus`).
public struct HomeAssistantDiscovery: Sendable {
    public let discoveryPrefix: String
    public let topics: MQTTTopics
    /// The node's availability topic, when the entities also depend on it.
    public let nodeAvailabilityTopic: String?
    /// The node ID under which the camera's entities appear: its topic prefix
    /// (`<prefix>/<camera>`) with every character outside [A-Za-z0-9_-] replaced by "_". Unique
    /// across a fleet whose nodes have unique prefixes.
    public let nodeID: String
    /// The camera's zones, each with a presence sensor.
    public let zones: [String]

    public init(discoveryPrefix: String = "homeassistant", configuration: MQTTConfiguration) {
        self.discoveryPrefix = discoveryPrefix
        self.topics = configuration.topics
        self.nodeAvailabilityTopic = configuration.nodeAvailabilityTopic
        self.zones = configuration.zones
        self.nodeID = MQTTTopics.identifier(from: topics.prefix, replacing: "_")
    }

    public var presenceConfigTopic: String { "\(discoveryPrefix)/binary_sensor/\(nodeID)/presence/config" }
    public var lastCodeConfigTopic: String { "\(discoveryPrefix)/sensor/\(nodeID)/last_code/config" }
    public var codeScannedTriggerConfigTopic: String { "\(discoveryPrefix)/device_automation/\(nodeID)/code_scanned/config" }
    /// Home Assistant's birth and last will: "online" after it (re)started, "offline" before it stops.
    public var statusTopic: String { Self.statusTopic(discoveryPrefix: discoveryPrefix) }
    public static func statusTopic(discoveryPrefix: String) -> String { "\(discoveryPrefix)/status" }
    public static let statusOnline = "online"

    /// A zone's presence sensor: its object ID is `zone_<zone>_presence` (zone names are safe in
    /// topics and IDs, see `Zone`).
    public func zonePresenceConfigTopic(_ zone: String) -> String {
        "\(discoveryPrefix)/binary_sensor/\(nodeID)/zone_\(zone)_presence/config"
    }

    /// The retained config messages, as (topic, JSON payload).
    public var messages: [(topic: String, payload: [UInt8])] {
        [(presenceConfigTopic, presenceConfig)]
            + zones.map { (zonePresenceConfigTopic($0), zonePresenceConfig($0)) }
            + [(lastCodeConfigTopic, lastCodeConfig), (codeScannedTriggerConfigTopic, codeScannedTriggerConfig)]
    }

    var presenceConfig: [UInt8] {
        occupancyConfig(name: "Presence", object: "presence", state: topics.presence)
    }

    func zonePresenceConfig(_ zone: String) -> [UInt8] {
        occupancyConfig(name: "Presence \(zone)", object: "zone_\(zone)_presence", state: topics.presence(inZone: zone))
    }

    private func occupancyConfig(name: String, object: String, state: String) -> [UInt8] {
        config(name: name, object: object, state: state) { writer in
            writer.key("device_class"); writer.string("occupancy")
            writer.key("payload_on"); writer.string("ON")
            writer.key("payload_off"); writer.string("OFF")
        }
    }

    var lastCodeConfig: [UInt8] {
        config(name: "Last code", object: "last_code", state: topics.lastCode) { writer in
            writer.key("icon"); writer.string("mdi:barcode-scan")
            // Home Assistant keeps at most 255 characters of a state.
            writer.key("value_template"); writer.string("{{ value[:255] }}")
        }
    }

    /// A device trigger (not an entity): fires on each message on the camera's `scan` topic, whose
    /// payload is the code's value (`trigger.payload` in an automation). Home Assistant's editor
    /// shows it as `"Code" scanned`, quotes included: a type it has no words for is shown as
    /// `"<subtype>" <type>`, and the types it has words for are a button's presses, every one of
    /// them with the subtype in quotes too (`"Code" pressed`). The type and subtype are also the
    /// trigger's identity in automations already made: they stay as they are.
    var codeScannedTriggerConfig: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("automation_type"); writer.string("trigger")
        writer.key("topic"); writer.string(topics.codeScanned)
        writer.key("type"); writer.string("scanned")
        writer.key("subtype"); writer.string("Code")
        writer.key("qos"); writer.integer(1)
        writeDevice(&writer)
        writer.endObject()
        return writer.bytes
    }

    private func config(name: String, object: String, state: String, extra: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("name"); writer.string(name)
        writer.key("unique_id"); writer.string("lookout_\(nodeID)_\(object)")
        writer.key("object_id"); writer.string("lookout_\(nodeID)_\(object)")
        writer.key("state_topic"); writer.string(state)
        // Available only while both the camera and its node say so.
        writer.key("availability")
        writer.beginArray()
        for topic in [nodeAvailabilityTopic, topics.availability].compactMap({ $0 }) {
            writer.beginObject()
            writer.key("topic"); writer.string(topic)
            writer.key("payload_available"); writer.string(MQTTTopics.online)
            writer.key("payload_not_available"); writer.string(MQTTTopics.offline)
            writer.endObject()
        }
        writer.endArray()
        writer.key("availability_mode"); writer.string("all")
        extra(&writer)
        writeDevice(&writer)
        writer.endObject()
        return writer.bytes
    }

    /// The camera's device, the same in every config so Home Assistant groups them.
    private func writeDevice(_ writer: inout JSONWriter) {
        writer.key("device")
        writer.beginObject()
        writer.key("identifiers"); writer.beginArray(); writer.string("lookout_\(nodeID)"); writer.endArray()
        writer.key("name"); writer.string("Lookout \(topics.prefix)")
        writer.key("manufacturer"); writer.string("Lookout")
        writer.key("model"); writer.string("V4L2 camera analysis")
        writer.endObject()
    }
}
