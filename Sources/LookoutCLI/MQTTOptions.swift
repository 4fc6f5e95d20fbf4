import ArgumentParser
import Lookout
import LookoutService
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
        "MQTT client ID (default lookout-<host>-<pid>; 1 to \(MQTTConfiguration.maximumGivenClientIDBytes) bytes): each camera connects as <id>-<camera>.", valueName: "id"))
    var clientID: String?

    static let queueRange = ValueRange.integer(1...1_000_000)
    @Option(name: .customLong("mqtt-queue"), parsing: .unconditional, help: ArgumentHelp(
        "Events kept while the broker is away; past it the oldest are dropped (\(MQTTOptions.queueRange.text)). (default: 10000)", valueName: "n"),
            transform: { try MQTTOptions.queueRange.parse($0) })
    var queueCapacity = 10_000

    @Flag(name: .customLong("ha-discovery"), help: "Publish Home Assistant discovery configs (a presence sensor and a last-code sensor).")
    var homeAssistantDiscovery = false

    @Option(name: .customLong("ha-prefix"), help: ArgumentHelp(
        "Home Assistant's discovery prefix (1 to \(MQTTConfiguration.maximumTopicPrefixBytes) bytes, no + or #).", valueName: "topic"))
    var homeAssistantPrefix = "homeassistant"

    mutating func validate() throws {
        if mqtt == nil {
            let given = [(user != nil, "--mqtt-user"), (passwordFile != nil, "--mqtt-password-file"), (caFile != nil, "--mqtt-ca"),
                         (certificateFile != nil, "--mqtt-cert"), (keyFile != nil, "--mqtt-key"), (clientID != nil, "--mqtt-client-id"),
                         (homeAssistantDiscovery, "--ha-discovery")].filter(\.0).map(\.1)
            if let first = given.first { throw ValidationError("\(first) needs --mqtt.") }
        }
        guard (certificateFile == nil) == (keyFile == nil) else { throw ValidationError("--mqtt-cert and --mqtt-key go together.") }
        if let mqtt {
            let broker: MQTTBrokerAddress
            do { broker = try MQTTBrokerAddress(mqtt) } catch { throw ValidationError(error.description + ".") }
            if !broker.usesTLS && (caFile != nil || certificateFile != nil) {
                throw ValidationError("--mqtt-ca, --mqtt-cert and --mqtt-key need an mqtts:// address.")
            }
            try Self.check("--mqtt: the topic prefix", broker.topicPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes)
            if let user {
                try Self.check("--mqtt-user", user, maximumBytes: MQTTConfiguration.maximumCredentialBytes)
            } else if let name = broker.username {
                try Self.check("--mqtt: the user name", name, maximumBytes: MQTTConfiguration.maximumCredentialBytes)
            }
            if let password = broker.password {
                try Self.check("--mqtt: the password", password, maximumBytes: MQTTConfiguration.maximumCredentialBytes)
            }
            if let clientID {
                try Self.check("--mqtt-client-id", clientID, maximumBytes: MQTTConfiguration.maximumGivenClientIDBytes,
                               note: " (each camera connects as ID-CAMERA, within \(MQTTConfiguration.maximumClientIDBytes))")
            }
        }
        if homeAssistantPrefix.contains(where: { $0 == "+" || $0 == "#" }) {
            throw ValidationError("--ha-prefix must be a topic without the wildcards + and #.")
        }
        try Self.check("--ha-prefix", homeAssistantPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes)
    }

    /// Refuses MQTT text that a broker or libmosquitto would, in a sentence naming `what`.
    private static func check(_ what: String, _ text: String, maximumBytes: Int, note: String = "") throws {
        if let problem = MQTTConfiguration.textProblem(text, maximumBytes: maximumBytes) {
            throw ValidationError("\(what) \(problem)\(note).")
        }
    }

    /// The password from LOOKOUT_MQTT_PASSWORD, --mqtt-password-file or the systemd credential
    /// (in that order), checked, nil when none is given; the TLS files checked to be regular
    /// files (OpenSSL would wait on a FIFO for ever). A refusal is said here, in one sentence,
    /// and thrown as its exit code: 66 for a file that cannot be read (or is a FIFO, device,
    /// socket or directory), 64 for a password MQTT cannot carry.
    func credentials() throws -> String? {
        guard mqtt != nil else { return nil }
        for (option, path) in [("--mqtt-ca", caFile), ("--mqtt-cert", certificateFile), ("--mqtt-key", keyFile)] {
            guard let path else { continue }
            do throws(SecretFileError) { try refuseSpecialFile(at: path) } catch {
                printDiagnostic("cannot read the \(option) file \(path): \(error)")
                throw ExitCode(ExitStatus.noInput)
            }
        }
        if passwordFile == nil, let value = getenv("LOOKOUT_MQTT_PASSWORD") {
            return try checkedPassword(bytes: UnsafeBufferPointer(start: value, count: strlen(value)).map { UInt8(bitPattern: $0) },
                                       from: "LOOKOUT_MQTT_PASSWORD")
        }
        guard let path = passwordFile ?? systemdCredential("mqtt-password") else { return nil }
        let line: [UInt8]
        do throws(SecretFileError) {
            line = try firstLineOfSecretFile(path, limit: MQTTConfiguration.maximumCredentialBytes)
        } catch .tooLong(let limit) {
            printDiagnostic("the MQTT password in \(path) is longer than \(limit) bytes, the most MQTT carries")
            throw ExitCode(ExitStatus.usage)
        } catch {
            printDiagnostic("cannot read the MQTT password file \(path): \(error)")
            throw ExitCode(ExitStatus.noInput)
        }
        return try checkedPassword(bytes: line, from: "the MQTT password in \(path)")
    }

    private func checkedPassword(bytes: [UInt8], from source: String) throws -> String {
        // An empty password is MQTT's "password flag with no bytes": allowed, as before.
        guard !bytes.isEmpty else { return "" }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            printDiagnostic("\(source) holds bytes that are not UTF-8; allowed: 1 to \(MQTTConfiguration.maximumCredentialBytes) bytes of UTF-8 text without control characters")
            throw ExitCode(ExitStatus.usage)
        }
        if let problem = MQTTConfiguration.textProblem(text, maximumBytes: MQTTConfiguration.maximumCredentialBytes) {
            printDiagnostic("\(source) \(problem)")
            throw ExitCode(ExitStatus.usage)
        }
        return text
    }

    /// The publisher's configuration, or nil without --mqtt; `password` from `credentials()`.
    func configuration(password: String?) throws(MQTTError) -> MQTTConfiguration? {
        guard let mqtt else { return nil }
        let broker = try MQTTBrokerAddress(mqtt)
        var configuration = MQTTConfiguration(broker: broker, clientID: clientID ?? Self.defaultClientID())
        configuration.username = user
        configuration.password = password
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
