import CMosquitto

/// Why MQTT output cannot be set up. Connection trouble at run time is not an error: the
/// publisher reconnects and reports it as a diagnostic.
public enum MQTTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The --mqtt address is malformed; carries the address with its password replaced by `***`
    /// (`MQTTBrokerList.redacted(_:)`), as every message quotes it.
    case invalidURL(String, reason: String)
    /// A TLS or credential file cannot be read.
    case unreadableFile(path: String, Errno)
    /// libmosquitto refused a setting; carries the call and its error code.
    case library(call: String, code: Int32)
    /// libmosquitto cannot be loaded (it is opened only when MQTT is used); carries the loader's message.
    case libraryMissing(String)
    /// A camera's outbox on disk cannot be opened.
    case outbox(OutboxError)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            // Redacted again: whoever made the error, the message never shows a password.
            return "invalid MQTT address '\(MQTTBrokerList.redacted(url))': \(reason)"
        case .unreadableFile(let path, let errno):
            return "\(path): \(errno)"
        case .library(let call, let code):
            return "\(call) failed: \(MQTTError.message(for: code))"
        case .libraryMissing(let reason):
            return "MQTT needs libmosquitto (Debian: libmosquitto1): \(reason)"
        case .outbox(let error):
            return error.description
        }
    }

    /// Words for one of libmosquitto's result codes (errno's for MOSQ_ERR_ERRNO: call it on the
    /// thread that got the code, before anything else can change errno).
    static func message(for code: Int32) -> String {
        MQTTResultCode.words(for: code, errno: .current)
    }
}
