import Foundation
import Testing
@testable import Lookout

/// sd_notify's datagrams as Lookout sends them: to a path, or to a name in the abstract
/// namespace ('@' in $NOTIFY_SOCKET), and addresses that are neither refused.
@Suite struct NotifySocketTests {
    @Test func aPathReceivesEachMessageAsOneDatagram() throws {
        let listener = try NotifyListener()
        let socket = try NotifySocket(address: listener.path)
        try socket.send("READY=1\nSTATUS=door: running")
        try socket.send("WATCHDOG=1")
        #expect(listener.wait { $0.count == 2 })
        #expect(listener.messages == ["READY=1\nSTATUS=door: running", "WATCHDOG=1"])
    }

    @Test func anAbstractNameIsReachedWithoutAFile() throws {
        let name = "lookout-test-\(UUID().uuidString.prefix(12))"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(receiver >= 0)
        defer { close(receiver) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) } }
        try #require(bound == 0)

        try NotifySocket(address: "@" + name).send("STOPPING=1")
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
        try #require(count > 0)
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == "STOPPING=1")
    }

    @Test func anAddressThatIsNeitherIsRefused() throws {
        #expect(throws: NotifySocket.Failure.invalidAddress("run/notify")) { try NotifySocket(address: "run/notify") }
        let long = "/" + String(repeating: "a", count: 200)
        #expect(throws: NotifySocket.Failure.invalidAddress(long)) { try NotifySocket(address: long) }
        // A socket nobody listens on: the send says why.
        #expect(throws: NotifySocket.Failure.send(Errno(rawValue: ENOENT))) {
            try NotifySocket(address: "/nonexistent/notify").send("READY=1")
        }
    }
}
