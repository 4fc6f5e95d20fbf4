/// Why a hook command cannot be used.
public enum HookError: Error, Equatable, Sendable, CustomStringConvertible {
    case commandNotFound(String)
    case notExecutable(path: String, Errno)
    case emptyCommand

    public var description: String {
        switch self {
        case .commandNotFound(let name): return "\(name): command not found"
        case .notExecutable(let path, let errno): return "\(path): cannot be run: \(errno)"
        case .emptyCommand: return "no command given"
        }
    }
}
