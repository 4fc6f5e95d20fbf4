import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for the servers tests start (brokers, ffmpeg's listener, web servers whose
/// port a configuration names). A server that cannot be told to bind port 0 and say which it got
/// needs a number first; what keeps that number its own until it binds:
/// - it comes from below the kernel's ephemeral range (`ip_local_port_range`), where no
///   connection's own port is taken from;
/// - it is leased: a lock (`flock`) on a file named after it, held until the test process ends,
///   so no other test process running beside this one (`scripts/test-layers`) hands it out;
/// - within the process, each port is handed out once;
/// - it is free when handed out (nothing else on the machine holds it).
enum TestPort {
    /// A leased port, free when given.
    static func lease() throws -> Int {
        let ephemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        let range = 10000..<max(20000, ephemeral)
        let port = (0..<range.count).lazy.map { _ in
            next.withLock { next -> Int in
                defer { next += 1 }
                return range.lowerBound + next % range.count
            }
        }.first { port in
            guard let lock = holdLock(on: port) else { return false }
            if isFree(port: port) { return true }
            close(lock) // held elsewhere on the machine: no lease needed
            return false
        }
        return try #require(port, "no free port below \(range.upperBound)")
    }

    /// The next port to try, as an offset into the range: processes side by side start apart.
    private static let next = Mutex(Int(getpid()) * 97)

    /// The folder of the lock files, shared by every test process of the machine.
    static let folder: String = {
        let path = NSTemporaryDirectory() + "/lookout-test-ports"
        mkdir(path, 0o1777)
        return path
    }()

    /// Takes the lease on `port` for the rest of this process, its lock's descriptor; nil when
    /// another process holds it. The descriptor stays open (close-on-exec: no child holds it), so
    /// the lock ends with the process, however it ends.
    private static func holdLock(on port: Int) -> Int32? {
        let fd = open(folder + "/\(port).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether `port` can be bound on loopback now.
    private static func isFree(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return withLoopbackAddress(port: port) { bind(fd, $0, $1) == 0 }
    }

    /// Whether something accepts connections on loopback `port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return withLoopbackAddress(port: port) { connect(fd, $0, $1) == 0 }
    }

    /// Calls `body` with 127.0.0.1:`port` as a socket address and its length.
    private static func withLoopbackAddress<T>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
