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
    /// Another process holds the state directory's lock (`outbox/lock`).
    case stateDirectoryInUse(path: String)
    /// A name Lookout uses inside the state directory (`outbox`, a journal's folder, a `lock`, a
    /// segment) is a symbolic link: never followed, refused.
    case symbolicLink(path: String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let errno):
            return "cannot create the state directory \(path): \(errno)"
        case .notWritable(let path, let errno):
            return "cannot write in the state directory \(path): \(errno)"
        case .cannotWrite(let path, let errno):
            return "cannot write the outbox file \(path): \(errno)"
        case .inUse(let directory):
            return "another Lookout process uses \(directory)"
        case .stateDirectoryInUse(let path):
            return "another Lookout process uses the state directory \(path)"
        case .symbolicLink(let path):
            return "\(path) is a symbolic link; Lookout does not follow links in its state directory: remove it"
        }
    }

    /// The error for `errno` from opening or making `name` in `directory`: a link there is
    /// `symbolicLink` (whatever the call said: `ELOOP`, `ENOTDIR`, `EEXIST`), anything else `other`.
    static func opening(_ name: String, in directory: DirectoryHandle, _ errno: Errno,
                        otherwise other: (String, Errno) -> OutboxError) -> OutboxError {
        let path = directory.path + "/" + name
        if let entry = try? directory.status(named: name), entry.kind == .symbolicLink { return .symbolicLink(path: path) }
        return other(path, errno)
    }
}
