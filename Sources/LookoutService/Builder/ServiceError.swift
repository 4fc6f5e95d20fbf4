import Lookout
import LookoutHTTP

/// Why a service could not be built, started or reloaded; each in one sentence. The command line
/// turns it into its documented exit code (`exitKind`).
public enum ServiceError: Error, CustomStringConvertible {
    /// An input could not be opened, or an output refused its settings.
    case capture(CaptureError)
    case mqtt(MQTTError)
    /// A hook's program cannot be run (`on-code`, `on-presence`).
    case hook(key: String, reason: String)
    /// A secret (the MQTT password, the HTTP token) could not be read from its file.
    case unreadableSecret(what: String, path: String, reason: String)
    /// A secret that cannot be used as it is (too long, not text).
    case invalidSecret(String)
    case web(WebServerError)
    /// A camera's event numbering in the state directory could not be opened or written.
    case eventIDs(EventSequenceError)
    /// The virtual keyboard of `keyboard` could not be made.
    case keyboard(UInputError)
    /// Standard input is an input but was closed.
    case standardInputClosed
    /// The configuration has problems (every one of them).
    case configuration(ConfigurationProblems)
    /// A reload came after the service was stopped.
    case stopped
    /// A reload to a configuration naming no camera while none is connected: refused, nothing stopped.
    case noCameraToReloadTo

    public var description: String {
        switch self {
        case .capture(let error): return error.description
        case .mqtt(let error): return error.description
        case .hook(let key, let reason): return "\(key): \(reason)."
        case .unreadableSecret(let what, let path, let reason): return "cannot read the \(what) file \(path): \(reason)"
        case .invalidSecret(let sentence): return sentence
        case .web(let error): return error.description
        case .keyboard(let error): return error.description
        case .eventIDs(let error): return "event ids: \(error)"
        case .standardInputClosed: return "standard input is closed, and the input is standard input (-)"
        case .configuration(let problems): return problems.description
        case .stopped: return "the service has stopped (its inputs ended or a stop was asked for); a reload changes nothing now"
        case .noCameraToReloadTo:
            return "the configuration names no camera and none is connected (no /dev/video* capture device)"
        }
    }

    /// What kind of failure it is, for an exit code.
    public enum Kind: Sendable {
        /// A setting is wrong (64).
        case usage
        /// Something to read is missing or unreadable (66).
        case noInput
        /// The state directory, a camera's outbox or its event numbering in it cannot be created,
        /// written or locked, or holds a symbolic link (73).
        case cannotCreate
        /// The keyboard output's device node (/dev/uinput) is missing or not writable (77).
        case keyboardUnavailable
        /// Something else failed (1), or the capture error's own kind.
        case failure
    }

    public var kind: Kind {
        switch self {
        case .hook, .invalidSecret, .configuration: return .usage
        case .unreadableSecret, .standardInputClosed, .noCameraToReloadTo: return .noInput
        case .mqtt(.invalidURL): return .usage
        case .mqtt(.unreadableFile): return .noInput
        case .mqtt(.outbox), .eventIDs: return .cannotCreate
        case .keyboard(let error): return error.isUnavailable ? .keyboardUnavailable : .failure
        case .mqtt, .web, .capture, .stopped: return .failure
        }
    }
}
