#if canImport(Glibc)
import Glibc
#endif

/// systemd's notification socket (sd_notify(3)), spoken without libsystemd: each message is one
/// datagram of `KEY=VALUE` lines sent to the unix socket `$NOTIFY_SOCKET` names, a path or, when
/// it starts with '@', a name in the abstract namespace.
package final class NotifySocket: Sendable {
    /// Why the socket cannot be used.
    package enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        /// `$NOTIFY_SOCKET` is neither an absolute path nor an abstract name, or is too long.
        case invalidAddress(String)
        case socket(Errno)
        case send(Errno)

        package var description: String {
            switch self {
            case .invalidAddress(let address): "NOTIFY_SOCKET '\(address)' is not a unix socket address"
            case .socket(let errno): "cannot open a socket for systemd's notifications: \(errno)"
            case .send(let errno): "cannot notify systemd: \(errno)"
            }
        }
    }

    /// The address as given (`/run/systemd/notify`, `@name`).
    package let address: String
    private let descriptor: Int32
    private let socketAddress: sockaddr_un
    private let addressLength: socklen_t

    /// The socket `$NOTIFY_SOCKET` names; nil when it is unset or empty (not run by systemd with
    /// Type=notify): then nothing is sent at all.
    package static func fromEnvironment() throws(Failure) -> NotifySocket? {
        guard let value = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return try NotifySocket(address: value)
    }

    package init(address: String) throws(Failure) {
        var path = Array(address.utf8)
        guard path.first == UInt8(ascii: "/") || path.first == UInt8(ascii: "@") else { throw .invalidAddress(address) }
        // An abstract name starts with a NUL byte instead of '@', and is not NUL-terminated.
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        guard path.count < capacity else { throw .invalidAddress(address) }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: path) }
        let length = MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(.current) }
        self.address = address
        self.descriptor = descriptor
        self.socketAddress = socketAddress
        self.addressLength = socklen_t(length)
    }

    deinit { close(descriptor) }

    /// Sends `message` (lines `KEY=VALUE`) as one datagram.
    package func send(_ message: String) throws(Failure) {
        var bytes = Array(message.utf8)
        var address = socketAddress
        while true {
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                    bytes.withUnsafeMutableBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, addressLength) }
                }
            }
            if sent >= 0 { return }
            if errno != EINTR { throw .send(.current) }
        }
    }
}
