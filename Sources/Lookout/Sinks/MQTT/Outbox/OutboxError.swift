/// Why an outbox (a camera connection's journal of events on disk) cannot be used.
public enum OutboxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The directory (the state directory, or one inside it) cannot be created.
    case cannotCreate(path: String, Errno)
    /// The state directory exists but cannot be written.
    case notWritable(path: String, Errno)
    /// A file in the directory cannot be opened, written, synced or removed.
    case cannotWrite(path: String, Errno)
    /// Another process holds the journal's lock.
    case inUse(directory: String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let errno):
            return "cannot create the state directory \(path): \(errno)"
        case .notWritable(let path, let errno):
            return "cannot write in the state directory \(path): \(errno)"
        case .cannotWrite(let path, let errno):
            return "cannot write the outbox file \(path): \(errno)"
        case .inUse(let directory):
            return "another Lookout process uses \(directory): give each its own --mqtt-client-id or --state-dir"
        }
    }
}
