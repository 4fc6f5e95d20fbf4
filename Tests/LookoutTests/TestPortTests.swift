import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The ports tests give their servers are leased, not only checked.
@Suite struct TestPortTests {
    @Test func aLeasedPortIsFreeHeldAndNotHandedOutAgain() throws {
        let first = try TestPort.lease(), second = try TestPort.lease()
        #expect(first != second)
        for port in [first, second] {
            #expect(TestPort.accepts(port: port) == false, "nothing listens on \(port)")
            // Another process's attempt: a lock on a new open file of the same name is refused
            // while this process holds the lease.
            let fd = open(TestPort.folder + "/\(port).lock", O_RDWR | O_CLOEXEC)
            defer { close(fd) }
            #expect(fd >= 0)
            #expect(flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK, "port \(port) is not leased")
        }
    }
}
