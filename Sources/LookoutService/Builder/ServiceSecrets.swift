import Lookout
import LookoutHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The secrets a service reads at start: the MQTT password and the HTTP token, each from a file
/// (or the environment, or a systemd credential), never from the configuration itself.
enum ServiceSecrets {
    /// The MQTT password from LOOKOUT_MQTT_PASSWORD, `mqtt-password-file` or the systemd credential
    /// `mqtt-password` (in that order), checked; nil when none is given. The TLS files are checked
    /// to be regular files (OpenSSL would wait on a FIFO for ever).
    /// - Parameter spelled: a key as the user wrote it (`--mqtt-ca` on the command line, `mqtt-ca` in a file).
    static func mqttPassword(_ settings: ConfigurationSettings, spelled: KeySpelling) throws(ServiceError) -> String? {
        for (key, path) in [("mqtt-ca", settings.mqttCA), ("mqtt-cert", settings.mqttCert), ("mqtt-key", settings.mqttKey)] {
            guard let path else { continue }
            do throws(SecretFileError) { try refuseSpecialFile(at: path) } catch {
                throw .unreadableSecret(what: spelled(key), path: path, reason: error.description)
            }
        }
        if settings.mqttPasswordFile == nil, let value = getenv("LOOKOUT_MQTT_PASSWORD") {
            return try checkedPassword(bytes: UnsafeBufferPointer(start: value, count: strlen(value)).map { UInt8(bitPattern: $0) },
                                       from: "LOOKOUT_MQTT_PASSWORD")
        }
        guard let path = settings.mqttPasswordFile ?? systemdCredential("mqtt-password") else { return nil }
        let line: [UInt8]
        do throws(SecretFileError) {
            line = try firstLineOfSecretFile(path, limit: MQTTConfiguration.maximumCredentialBytes)
        } catch .tooLong(let limit) {
            throw .invalidSecret("the MQTT password in \(path) is longer than \(limit) bytes, the most MQTT carries")
        } catch {
            throw .unreadableSecret(what: "MQTT password", path: path, reason: error.description)
        }
        return try checkedPassword(bytes: line, from: "the MQTT password in \(path)")
    }

    /// The warning for a password written in the broker's URL: on the command line any user sees
    /// it in ps(1); in a file, whoever can read the file does.
    static func passwordInURLWarning(onCommandLine: Bool) -> String {
        onCommandLine
            ? "warning: the MQTT password in --mqtt is visible to every user of this machine; use --mqtt-password-file or LOOKOUT_MQTT_PASSWORD"
            : "warning: the MQTT password is written in mqtt's URL, readable by whoever can read the configuration; "
                + "put it in a file of its own named by mqtt-password-file (or a systemd credential named mqtt-password)"
    }

    private static func checkedPassword(bytes: [UInt8], from source: String) throws(ServiceError) -> String {
        // An empty password is MQTT's "password flag with no bytes": allowed, as before.
        guard !bytes.isEmpty else { return "" }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidSecret("\(source) holds bytes that are not UTF-8; allowed: 1 to \(MQTTConfiguration.maximumCredentialBytes) bytes of UTF-8 text without control characters")
        }
        if let problem = MQTTConfiguration.textProblem(text, maximumBytes: MQTTConfiguration.maximumCredentialBytes) {
            throw .invalidSecret("\(source) \(problem)")
        }
        return text
    }

    /// The HTTP token: the first line of `http-token-file` (or the systemd credential
    /// `http-token`), without surrounding spaces; nil when none is given.
    static func httpToken(_ settings: ConfigurationSettings) throws(ServiceError) -> [UInt8]? {
        guard let path = settings.httpTokenFile ?? systemdCredential("http-token") else { return nil }
        let line: [UInt8]
        do throws(SecretFileError) {
            line = try firstLineOfSecretFile(path, limit: 65536)
        } catch .tooLong {
            throw .invalidSecret("the HTTP token in \(path) is over 64 KB long; a request carries at most \(TokenLimit.maximumBytes) bytes (1 to \(TokenLimit.maximumBytes) printable ASCII characters)")
        } catch {
            throw .unreadableSecret(what: "HTTP token", path: path, reason: error.description)
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let token = Array(line.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        if let problem = tokenProblem(token) { throw .invalidSecret("the HTTP token in \(path) \(problem)") }
        return token
    }

    /// What is wrong with a token, nil when nothing: it must be 1 to `TokenLimit.maximumBytes`
    /// printable ASCII characters (spaces inside allowed), which every client sends unchanged in a
    /// header, as a bearer token and as a basic-auth password alike.
    static func tokenProblem(_ token: [UInt8]) -> String? {
        if token.isEmpty { return "is empty; put a token on the file's first line" }
        if token.count > TokenLimit.maximumBytes {
            return "is \(token.count) bytes long; a request carries at most \(TokenLimit.maximumBytes) (1 to \(TokenLimit.maximumBytes) printable ASCII characters)"
        }
        if let bad = token.first(where: { !(0x20...0x7E).contains($0) }) {
            return "holds the byte 0x\(String(bad, radix: 16, uppercase: true)); a token is 1 to \(TokenLimit.maximumBytes) printable ASCII characters"
        }
        return nil
    }

    /// The MQTT client ID made when none is given: lookout-<host>-<pid>.
    /// The same at every start, so the brokers keep the session (persistent sessions): `lookout-<host>`,
    /// and the topic prefix when it is not the default (two nodes on one host differ by prefix).
    static func defaultClientID(topicPrefix: String) -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let bytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let host = String(decoding: bytes, as: UTF8.self).prefix(40)
        var id = "lookout-" + (host.isEmpty ? "host" : String(host))
        if topicPrefix != "lookout" {
            id += "-" + MQTTTopics.identifier(from: topicPrefix, replacing: "-")
        }
        return String(decoding: id.utf8.prefix(MQTTConfiguration.maximumGivenClientIDBytes), as: UTF8.self)
    }
}
