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

    public init(broker: MQTTBrokerAddress, clientID: String) {
        self.broker = broker
        self.clientID = clientID
    }

    public var topics: MQTTTopics { MQTTTopics(prefix: broker.topicPrefix) }
}

/// The topics Lookout publishes under its prefix.
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
