import ArgumentParser
import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Options for publishing events to an MQTT broker.
struct MQTTOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Publish events to this broker: mqtt[s]://[user@]host[:port]/prefix (see README, Automation).",
        valueName: "url"))
    var mqtt: String?

    @Option(name: .customLong("mqtt-user"), help: ArgumentHelp("MQTT user name (overrides the URL's).", valueName: "name"))
    var user: String?

    @Option(name: .customLong("mqtt-password-file"), help: ArgumentHelp(
        "Read the MQTT password from the first line of this file. The environment variable LOOKOUT_MQTT_PASSWORD works too, and so does a systemd credential named mqtt-password.",
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
        "MQTT client ID (default lookout-<host>-<pid>).", valueName: "id"))
    var clientID: String?

    @Option(name: .customLong("mqtt-queue"), help: ArgumentHelp(
        "Events kept while the broker is away; past it the oldest are dropped.", valueName: "n"))
    var queueCapacity = 10_000

    @Flag(name: .customLong("ha-discovery"), help: "Publish Home Assistant discovery configs (a presence sensor and a last-code sensor).")
    var homeAssistantDiscovery = false

    @Option(name: .customLong("ha-prefix"), help: ArgumentHelp("Home Assistant's discovery prefix.", valueName: "topic"))
    var homeAssistantPrefix = "homeassistant"

    mutating func validate() throws {
        if mqtt == nil {
            let given = [(user != nil, "--mqtt-user"), (passwordFile != nil, "--mqtt-password-file"), (caFile != nil, "--mqtt-ca"),
                         (certificateFile != nil, "--mqtt-cert"), (keyFile != nil, "--mqtt-key"), (clientID != nil, "--mqtt-client-id"),
                         (homeAssistantDiscovery, "--ha-discovery")].filter(\.0).map(\.1)
            if let first = given.first { throw ValidationError("\(first) needs --mqtt.") }
        }
        guard (1...1_000_000).contains(queueCapacity) else { throw ValidationError("--mqtt-queue must be between 1 and 1000000.") }
        guard (certificateFile == nil) == (keyFile == nil) else { throw ValidationError("--mqtt-cert and --mqtt-key go together.") }
        if let mqtt {
            let broker: MQTTBrokerAddress
            do { broker = try MQTTBrokerAddress(mqtt) } catch { throw ValidationError(error.description + ".") }
            if !broker.usesTLS && (caFile != nil || certificateFile != nil) {
                throw ValidationError("--mqtt-ca, --mqtt-cert and --mqtt-key need an mqtts:// address.")
            }
        }
        if homeAssistantPrefix.isEmpty || homeAssistantPrefix.contains(where: { $0 == "+" || $0 == "#" }) {
            throw ValidationError("--ha-prefix must be a topic without wildcards.")
        }
    }

    /// The publisher's configuration, or nil without --mqtt. Reads the password file.
    func configuration() throws(MQTTError) -> MQTTConfiguration? {
        guard let mqtt else { return nil }
        let broker = try MQTTBrokerAddress(mqtt)
        var configuration = MQTTConfiguration(broker: broker, clientID: clientID ?? Self.defaultClientID())
        configuration.username = user
        if let value = getenv("LOOKOUT_MQTT_PASSWORD"), passwordFile == nil {
            configuration.password = String(cString: value)
        } else if let passwordFile = passwordFile ?? systemdCredential("mqtt-password") {
            do throws(Errno) {
                configuration.password = String(decoding: try firstLineOfSecretFile(passwordFile), as: UTF8.self)
            } catch {
                throw .unreadableFile(path: passwordFile, error)
            }
        }
        configuration.caFile = caFile
        configuration.certificateFile = certificateFile
        configuration.keyFile = keyFile
        configuration.queueCapacity = queueCapacity
        configuration.homeAssistantDiscoveryPrefix = homeAssistantDiscovery ? homeAssistantPrefix : nil
        return configuration
    }

    /// True when the password is written in the URL, where `ps` shows it to every user.
    var passwordInURL: Bool {
        guard let mqtt, let broker = try? MQTTBrokerAddress(mqtt) else { return false }
        return broker.password != nil
    }

    static func defaultClientID() -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let bytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let host = String(decoding: bytes, as: UTF8.self).prefix(40)
        return "lookout-\(host.isEmpty ? "host" : String(host))-\(getpid())"
    }
}
