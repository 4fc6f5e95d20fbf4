import Foundation
import Testing

/// systemd's side of sd_notify for tests: a unix datagram socket bound in a temporary folder,
/// whose path goes into a child's $NOTIFY_SOCKET, and every message received, in order.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let folder: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []

    init() throws {
        folder = NSTemporaryDirectory() + "lookout-notify-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        path = folder + "/notify"
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        self.descriptor = descriptor
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
        Thread.detachNewThread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0, let self else { return }
                self.append(String(decoding: buffer[..<count], as: UTF8.self))
            }
        }
    }

    deinit {
        // Wakes the reader (recv returns 0 or fails) before the descriptor goes.
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func append(_ message: String) {
        lock.lock()
        received.append(message)
        lock.unlock()
    }

    /// Every message so far, in the order sent.
    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// The environment that makes a child notify this socket, with a watchdog of `watchdogMicroseconds`.
    func environment(watchdogMicroseconds: Int? = nil) -> [String: String] {
        var environment = ["NOTIFY_SOCKET": path]
        if let watchdogMicroseconds { environment["WATCHDOG_USEC"] = String(watchdogMicroseconds) }
        return environment
    }

    /// Waits until `condition` holds for the messages so far; false after `timeout` seconds.
    func wait(timeout: Double = 60, until condition: ([String]) -> Bool) -> Bool {
        eventually(timeout: timeout) { condition(messages) }
    }
}
