#if canImport(Glibc)
import Glibc
#endif

/// A POSIX error number with its system message, as swift-system's `Errno` carries it.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public var description: String { String(cString: strerror(rawValue)) }

    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let isDirectory = Errno(rawValue: EISDIR)
}
