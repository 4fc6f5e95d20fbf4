/// Everything the MQTT publisher needs: the broker, credentials, TLS files and behaviour.
public struct MQTTConfiguration: Sendable {
    public var broker: MQTTBrokerAddress
    /// Overrides the user name and password of the address (from a file or the environment).
    public var username: String?
    public var password: String?
    /// TLS (mqtts://): the CA bundle to trust (default: the system's, /etc/ssl/certs), and an
    /// optional client certificate with its key.
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    public var clientID: String
    /// Seconds between keep-alive pings; the broker declares Lookout gone (and publishes the
    /// "offline" will) after 1.5 times this without traffic.
    public var keepAlive = 30
    /// Events waiting for the broker, at most; past it the oldest are dropped and counted.
    public var queueCapacity = 10_000
    /// Home Assistant MQTT discovery: the discovery prefix, or nil for none.
    public var homeAssistantDiscoveryPrefix: String?
    /// Where this connection's topics go: the address's prefix (a node), or `<prefix>/<camera>`.
    public var topicPrefix: String
    /// The camera this connection publishes for (state, events, discovery), or nil for a node's
    /// own connection, which publishes only its availability.
    public var camera: String?
    /// The node's availability topic: a camera's Home Assistant entities are available only while
    /// both the node and the camera are.
    public var nodeAvailabilityTopic: String?

    public init(broker: MQTTBrokerAddress, clientID: String) {
        self.broker = broker
        self.clientID = clientID
        self.topicPrefix = broker.topicPrefix
    }

    public var topics: MQTTTopics { MQTTTopics(prefix: topicPrefix) }

    /// The configuration of `camera`'s own connection under this node's: topics under
    /// `<prefix>/<camera>`, client ID `<id>-<camera>`, its last will on its own availability.
    public func forCamera(_ camera: String) -> MQTTConfiguration {
        var configuration = self
        configuration.topicPrefix = topicPrefix + "/" + camera
        configuration.clientID = clientID + "-" + camera
        configuration.camera = camera
        configuration.nodeAvailabilityTopic = topics.availability
        return configuration
    }
}

/// The topics Lookout publishes under a prefix: a node's `<prefix>/available`, and a camera's
/// under `<prefix>/<camera>`.
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String
    /// Retained "online"; the retained last will says "offline".
    public var availability: String { prefix + "/available" }
    /// Retained "ON" / "OFF".
    public var presence: String { prefix + "/presence" }
    /// Retained: the text of the last code read.
    public var lastCode: String { prefix + "/code" }
    /// Every event as JSON, QoS 1, not retained.
    public var events: String { prefix + "/events" }
    /// Retained: the newest event snapshot as binary JPEG (`--snapshots`), as Frigate does.
    public var snapshot: String { prefix + "/snapshot" }

    public static let online = "online"
    public static let offline = "offline"
}
