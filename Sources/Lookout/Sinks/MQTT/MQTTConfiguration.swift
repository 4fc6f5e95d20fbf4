/// Everything the MQTT publisher needs: the broker, credentials, TLS files and behaviour.
public struct MQTTConfiguration: Sendable {
    /// The brokers of one fabric, tried in turn: a connection fails over to the next when its
    /// broker is lost or cannot be reached (`MQTTBrokerList`).
    public var brokers: [MQTTBrokerAddress]
    /// The first broker; setting it makes it the only one.
    public var broker: MQTTBrokerAddress {
        get { brokers[0] }
        set { brokers = [newValue] }
    }
    /// Overrides the user name and password of the address (from a file or the environment).
    public var username: String?
    public var password: String?
    /// TLS (mqtts://): the CA bundle to trust (default: the system's, /etc/ssl/certs), and an
    /// optional client certificate with its key.
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    /// The client ID, the same at every start: the brokers keep the session (clean session off)
    /// with its subscriptions and the QoS 1 messages in flight for the next connection, on any
    /// broker of the fabric.
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
    /// The camera's zones (`DetectionRegions.zoneNames`): each gets a retained presence topic,
    /// "OFF" from the start, and a Home Assistant binary sensor. A zone not listed still gets its
    /// topic once presence turns on in it.
    public var zones: [String] = []
    /// Where a camera's events wait for the broker on disk (`OutboxJournal`), or nil to keep them
    /// in memory only (`queueCapacity`).
    public var outbox: OutboxSettings?

    public init(broker: MQTTBrokerAddress, clientID: String) {
        self.brokers = [broker]
        self.clientID = clientID
        self.topicPrefix = broker.topicPrefix
    }

    public init(brokers: MQTTBrokerList, clientID: String) {
        self.brokers = brokers.addresses
        self.clientID = clientID
        self.topicPrefix = brokers.topicPrefix
    }

    /// The brokers without passwords, comma-separated, for messages.
    public var redactedBrokers: String { brokers.map(\.redacted).joined(separator: ",") }

    /// The broker a connection tries first (an index into `brokers`); nil: one chosen from the
    /// client ID, the same at every start, so that a fleet whose nodes list the same brokers
    /// spreads its connections over them rather than piling onto the first.
    public var firstBroker: Int?

    /// `firstBroker`, or the one the client ID picks (FNV-1a, stable across runs and machines).
    var startingBroker: Int {
        if let firstBroker { return min(max(0, firstBroker), brokers.count - 1) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in clientID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int(hash % UInt64(brokers.count))
    }

    public var topics: MQTTTopics { MQTTTopics(prefix: topicPrefix) }

    /// The configuration of `camera`'s own connection under this node's: topics under
    /// `<prefix>/<camera>`, client ID `<id>-<camera>`, its last will on its own availability, and
    /// its zones' presence.
    public func forCamera(_ camera: String, zones: [String] = []) -> MQTTConfiguration {
        var configuration = self
        configuration.topicPrefix = topicPrefix + "/" + camera
        configuration.clientID = clientID + "-" + camera
        configuration.camera = camera
        configuration.nodeAvailabilityTopic = topics.availability
        configuration.zones = zones
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
    /// Retained "ON" / "OFF": presence in one zone (`<prefix>/zone/<zone>/presence`).
    public func presence(inZone zone: String) -> String { prefix + "/zone/" + zone + "/presence" }
    /// Retained: the text of the last code read.
    public var lastCode: String { prefix + "/code" }
    /// Every event as JSON, QoS 1, not retained.
    public var events: String { prefix + "/events" }
    /// Each code read: its value as the payload, QoS 1, not retained (Home Assistant's device
    /// trigger "Code scanned").
    public var codeScanned: String { prefix + "/scan" }
    /// Retained: the newest event snapshot as binary JPEG (`--snapshots`), as Frigate does.
    public var snapshot: String { prefix + "/snapshot" }

    public static let online = "online"
    public static let offline = "offline"

    /// `text` with every character but ASCII letters, digits, `_` and `-` made `replacement`: an
    /// ID made from a topic prefix (Home Assistant's node ID, the default client ID).
    public static func identifier(from text: String, replacing replacement: Character) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : replacement })
    }
}

/// The bounds Lookout keeps MQTT values within, checked before libmosquitto sees them.
extension MQTTConfiguration {
    /// Bytes in the topic prefix (`--mqtt`'s path, `--ha-prefix`): a camera's topics add its name
    /// and a level (`/hall/availability`), far within MQTT's 65535 bytes per topic.
    public static let maximumTopicPrefixBytes = 512
    /// Bytes in any connection's client ID. MQTT 3.1.1 promises only 23; mosquitto and the usual
    /// brokers take far more, and 128 keeps broker logs readable.
    public static let maximumClientIDBytes = 128
    /// Bytes in the client ID given: each camera connects as `<id>-<camera>`, and a camera's name
    /// may have 64 bytes, so 63 keeps every connection within `maximumClientIDBytes`.
    public static var maximumGivenClientIDBytes: Int { maximumClientIDBytes - 1 - CameraName.maximumLength }
    /// Bytes in a user name or password: MQTT's two-byte length.
    public static let maximumCredentialBytes = 65535

    /// What keeps `text` from going out as MQTT text (a topic, client ID, user name or password),
    /// or nil: it must be 1 to `maximumBytes` bytes of UTF-8 without control characters (which
    /// brokers refuse) and without bytes that are not UTF-8 (kept from the command line as
    /// U+10FF80 to U+10FFFF, see `String(platformPath:)`).
    public static func textProblem(_ text: String, maximumBytes: Int) -> String? {
        let rule = "1 to \(maximumBytes) bytes of UTF-8 text without control characters"
        if text.isEmpty { return "is empty; allowed: \(rule)" }
        if text.utf8.count > maximumBytes { return "is \(text.utf8.count) bytes long; allowed: \(rule)" }
        if let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "holds the control character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4)); allowed: \(rule)"
        }
        if text.unicodeScalars.contains(where: { $0.value >= 0x10FF80 }) { return "holds bytes that are not UTF-8; allowed: \(rule)" }
        return nil
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { count >= length ? self : String(repeating: "0", count: length - count) + self }
}
