import ArgumentParser
import Lookout
import LookoutService
#if canImport(Glibc)
import Glibc
#endif

/// Options for publishing events to an MQTT broker.
struct MQTTOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Publish events to this broker: mqtt[s]://[user@]host[:port]/prefix; or to the brokers of one fabric (a cluster), comma-separated: mqtt://a:1883,mqtt://b:1883/prefix connects to one and fails over to the next (see docs/automation.md, docs/fleet.md).",
        valueName: "url[,url...]"))
    var mqtt: String?

    @Option(name: .customLong("mqtt-user"), help: ArgumentHelp("MQTT user name (overrides the URL's).", valueName: "name"))
    var user: String?

    @Option(name: .customLong("mqtt-password-file"), help: ArgumentHelp(
        "Read the MQTT password from the first line of this file (a regular file; at most \(MQTTConfiguration.maximumCredentialBytes) bytes of UTF-8). The environment variable LOOKOUT_MQTT_PASSWORD works too, and so does a systemd credential named mqtt-password.",
        valueName: "path"))
    var passwordFile: String?

    @Option(name: .customLong("mqtt-ca"), help: ArgumentHelp(
        "CA certificates (PEM) to trust for mqtts:// (default: the system's).", valueName: "path"))
    var caFile: String?

    @Option(name: .customLong("mqtt-cert"), help: ArgumentHelp("Client certificate (PEM) for mqtts://.", valueName: "path"))
    var certificateFile: String?

    @Option(name: .customLong("mqtt-key"), help: ArgumentHelp("Private key (PEM, unencrypted) of --mqtt-cert.", valueName: "path"))
    var keyFile: String?

    @Option(name: .customLong("mqtt-client-id"), help: ArgumentHelp(
        "MQTT client ID, the same at every start so the brokers keep the session (default lookout-<host>, and -<prefix> for a prefix other than lookout; 1 to \(MQTTConfiguration.maximumGivenClientIDBytes) bytes): each camera connects as <id>-<camera>.", valueName: "id"))
    var clientID: String?

    static let queueRange = ConfigurationKey.argumentRange("mqtt-queue", Int.self)
    @Option(name: .customLong("mqtt-queue"), parsing: .unconditional, help: ArgumentHelp(
        "Code values for the scan trigger kept in memory while the broker is away (events wait in the outbox); past it the oldest are dropped (\(MQTTOptions.queueRange.text)). (default: \(ConfigurationKey.defaultText(of: "mqtt-queue")))", valueName: "n"),
            transform: { try MQTTOptions.queueRange.parse($0) })
    var queueCapacity: Int?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Keep each camera's MQTT outbox (events not yet acknowledged) in DIR/outbox/<client ID>, and its event numbers (ids go on across restarts) in DIR/event-ids; used with --mqtt, or when given. (default: \(StateDirectory.defaultText))",
        valueName: "dir"))
    var stateDirectory: String?

    static let outboxSizeRange = ConfigurationKey.argumentRange("outbox-max-size", ByteCountValue.self)
    @Option(name: .customLong("outbox-max-size"), parsing: .unconditional, help: ArgumentHelp(
        "A camera's MQTT outbox never grows past this; the oldest events are dropped (\(MQTTOptions.outboxSizeRange.text)). (default: \(ConfigurationKey.defaultText(of: "outbox-max-size")))",
        valueName: "size"), transform: { try MQTTOptions.outboxSizeRange.parse($0) })
    var outboxMaxSize: ByteCountArgument?

    static let outboxAgeRange = ConfigurationKey.argumentRange("outbox-max-age", AgeValue.self)
    @Option(name: .customLong("outbox-max-age"), parsing: .unconditional, help: ArgumentHelp(
        "Events older than this are dropped from the MQTT outbox (\(MQTTOptions.outboxAgeRange.text)). (default: \(ConfigurationKey.defaultText(of: "outbox-max-age")))", valueName: "age"),
            transform: { try MQTTOptions.outboxAgeRange.parse($0) })
    var outboxMaxAge: AgeArgument?

    @Flag(name: .customLong("ha-discovery"), help: "Publish Home Assistant discovery configs (a presence sensor and a last-code sensor).")
    var homeAssistantDiscovery = false

    @Option(name: .customLong("ha-prefix"), help: ArgumentHelp(
        "Home Assistant's discovery prefix (1 to \(MQTTConfiguration.maximumTopicPrefixBytes) bytes, no + or #). (default: \(ConfigurationKey.defaultText(of: "ha-prefix")))", valueName: "topic"))
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
