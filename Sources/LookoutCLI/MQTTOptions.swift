import ArgumentParser
import Lookout
import LookoutService
#if canImport(Glibc)
import Glibc
#endif

/// Options for publishing events to an MQTT broker.
struct MQTTOptions: ParsableArguments {
    @Option(name: .long, help: .key("mqtt"))
    var mqtt: String?

    @Option(name: .customLong("mqtt-user"), help: .key("mqtt-user"))
    var user: String?

    @Option(name: .customLong("mqtt-password-file"), help: .key("mqtt-password-file"))
    var passwordFile: String?

    @Option(name: .customLong("mqtt-ca"), help: .key("mqtt-ca"))
    var caFile: String?

    @Option(name: .customLong("mqtt-cert"), help: .key("mqtt-cert"))
    var certificateFile: String?

    @Option(name: .customLong("mqtt-key"), help: .key("mqtt-key"))
    var keyFile: String?

    @Option(name: .customLong("mqtt-client-id"), help: .key("mqtt-client-id"))
    var clientID: String?

    static let queueRange = ConfigurationKey.argumentRange("mqtt-queue", Int.self)
    @Option(name: .customLong("mqtt-queue"), parsing: .unconditional, help: .key("mqtt-queue"),
            transform: { try MQTTOptions.queueRange.parse($0) })
    var queueCapacity: Int?

    @Option(name: .customLong("state-dir"), help: .key("state-dir"))
    var stateDirectory: String?

    static let outboxSizeRange = ConfigurationKey.argumentRange("outbox-max-size", ByteCountValue.self)
    @Option(name: .customLong("outbox-max-size"), parsing: .unconditional, help: .key("outbox-max-size"), transform: { try MQTTOptions.outboxSizeRange.parse($0) })
    var outboxMaxSize: ByteCountArgument?

    static let outboxAgeRange = ConfigurationKey.argumentRange("outbox-max-age", AgeValue.self)
    @Option(name: .customLong("outbox-max-age"), parsing: .unconditional, help: .key("outbox-max-age"),
            transform: { try MQTTOptions.outboxAgeRange.parse($0) })
    var outboxMaxAge: AgeArgument?

    @Flag(name: .customLong("ha-discovery"), help: .key("ha-discovery"))
    var homeAssistantDiscovery = false

    @Option(name: .customLong("ha-prefix"), help: .key("ha-prefix"))
    var homeAssistantPrefix: String?

    /// Without a configuration file, the MQTT options need --mqtt, and a client certificate its key.
    func checkStandingAlone() throws {
        if mqtt == nil {
            let given = [(user != nil, "--mqtt-user"), (passwordFile != nil, "--mqtt-password-file"), (caFile != nil, "--mqtt-ca"),
                         (certificateFile != nil, "--mqtt-cert"), (keyFile != nil, "--mqtt-key"), (clientID != nil, "--mqtt-client-id"),
                         (homeAssistantDiscovery, "--ha-discovery"), (stateDirectory != nil, "--state-dir"),
                         (outboxMaxSize != nil, "--outbox-max-size"), (outboxMaxAge != nil, "--outbox-max-age")].filter(\.0).map(\.1)
            if let first = given.first { throw ValidationError("\(first) needs --mqtt.") }
        }
        guard (certificateFile == nil) == (keyFile == nil) else { throw ValidationError("--mqtt-cert and --mqtt-key go together.") }
    }

    mutating func validate() throws {
        if let mqtt {
            let brokers: MQTTBrokerList
            do { brokers = try MQTTBrokerList(mqtt) } catch { throw ValidationError(error.description + ".") }
            if !brokers.first.usesTLS && (caFile != nil || certificateFile != nil) {
                throw ValidationError("--mqtt-ca, --mqtt-cert and --mqtt-key need an mqtts:// address.")
            }
            try Self.check("--mqtt: the topic prefix", brokers.topicPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes)
            if let user { try Self.check("--mqtt-user", user, maximumBytes: MQTTConfiguration.maximumCredentialBytes) }
            for broker in brokers.addresses {
                if user == nil, let name = broker.username {
                    try Self.check("--mqtt: the user name", name, maximumBytes: MQTTConfiguration.maximumCredentialBytes)
                }
                if let password = broker.password {
                    try Self.check("--mqtt: the password", password, maximumBytes: MQTTConfiguration.maximumCredentialBytes)
                }
            }
            if let clientID {
                try Self.check("--mqtt-client-id", clientID, maximumBytes: MQTTConfiguration.maximumGivenClientIDBytes,
                               note: " (each camera connects as ID-CAMERA, within \(MQTTConfiguration.maximumClientIDBytes))")
            }
        }
        if let homeAssistantPrefix {
            if homeAssistantPrefix.contains(where: { $0 == "+" || $0 == "#" }) {
                throw ValidationError("--ha-prefix must be a topic without the wildcards + and #.")
            }
            try Self.check("--ha-prefix", homeAssistantPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes)
        }
    }

    /// Refuses MQTT text that a broker or libmosquitto would, in a sentence naming `what`.
    private static func check(_ what: String, _ text: String, maximumBytes: Int, note: String = "") throws {
        if let problem = MQTTConfiguration.textProblem(text, maximumBytes: maximumBytes) {
            throw ValidationError("\(what) \(problem)\(note).")
        }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.mqtt = mqtt
        settings.mqttUser = user
        settings.mqttPasswordFile = passwordFile
        settings.mqttCA = caFile
        settings.mqttCert = certificateFile
        settings.mqttKey = keyFile
        settings.mqttClientID = clientID
        settings.mqttQueue = queueCapacity
        settings.stateDir = stateDirectory
        settings.outboxMaxSize = outboxMaxSize
        settings.outboxMaxAge = outboxMaxAge
        if homeAssistantDiscovery { settings.haDiscovery = true }
        settings.haPrefix = homeAssistantPrefix
        return settings
    }
}
