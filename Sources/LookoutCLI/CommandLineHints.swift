import Lookout
import LookoutService

/// What the command line adds to a library's error: the option or command that changes it. The
/// libraries say what went wrong in their own words; only the command line knows its options.
enum CommandLineHints {
    /// `error`'s sentence, with what to do on the command line when there is something to say.
    static func sentence(for error: CaptureError) -> String {
        error.description + (hint(for: error).map { "; " + $0 } ?? "")
    }

    static func sentence(for error: ServiceError) -> String {
        switch error {
        case .capture(let capture): return sentence(for: capture)
        case .mqtt(.outbox(let outbox)): return error.description + (hint(for: outbox).map { ": " + $0 } ?? "")
        case .standardInputClosed: return error.description + "; pipe a stream into lookout or name a file with --input"
        default: return error.description
        }
    }

    static func hint(for error: CaptureError) -> String? {
        switch error {
        case .faceModelUnavailable: return "pass --face-model PATH, or leave face out of --types"
        case .device(.noCamera): return "pass --input PATH to read a file or a device"
        case .device(.noSuchControl): return "lookout devices --controls lists a camera's controls"
        default: return nil
        }
    }

    static func hint(for error: OutboxError) -> String? {
        switch error {
        case .inUse: return "give each its own --mqtt-client-id or --state-dir"
        case .stateDirectoryInUse: return "give each process its own --state-dir"
        default: return nil
        }
    }
}
