import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An open file Lookout owns, closed when the value goes (swift-system's `FileDescriptor`, with
/// ownership): each call does one system call's work and throws the `Errno` it failed with.
/// Its owner uses it; closing (or releasing) it is atomic: it happens once, whichever thread asks.
package final class FileDescriptor: Sendable {
    private let descriptor: Atomic<Int32>

    /// The descriptor; -1 once closed or released.
    public var rawValue: Int32 { descriptor.load(ordering: .acquiring) }

    init(rawValue: Int32) {
        descriptor = Atomic(rawValue)
    }

    deinit {
        let fd = descriptor.load(ordering: .relaxed)
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Writes all of `bytes`, however many calls it takes.
    package func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + written, bytes.count - written) }
            if n > 0 {
                written += n
            } else if n == 0 {
                throw Errno(rawValue: ENOSPC) // a write that takes nothing: no room
            } else if Errno.current != .interrupted {
                throw Errno.current
            }
        }
    }

    /// Reads at most `count` bytes; empty at the end of the file.
    package func read(upTo count: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        while true {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, count) }
            if n >= 0 {
                bytes.removeLast(count - n)
                return bytes
            }
            if Errno.current != .interrupted { throw Errno.current }
        }
    }

    /// What the open file is (`fstat`): of the file itself, whatever name led to it.
    package func status() throws(Errno) -> FileStatus {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw Errno.current }
        return FileStatus(info)
    }

    /// Takes the exclusive flock(2) on the open file without waiting: false when another open
    /// file (another process's, or another `open` of it in this one) holds it.
    package func tryLockExclusively() throws(Errno) -> Bool {
        while flock(rawValue, LOCK_EX | LOCK_NB) != 0 {
            let error = Errno.current
            if error.rawValue == EWOULDBLOCK { return false }
            if error != .interrupted { throw error }
        }
        return true
    }

    /// fsync(2)s the file's data and what is needed to read it back.
    package func sync() throws(Errno) {
        guard fdatasync(rawValue) == 0 else { throw Errno.current }
    }

    /// Closes now: a failed close can mean written data is lost, so it is said.
    package func close() throws(Errno) {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }
        if Glibc.close(fd) != 0, Errno.current != .interrupted { throw Errno.current }
    }

    /// Hands the descriptor to a new owner (a C library that closes it); this value forgets it.
    package func release() -> Int32 {
        descriptor.exchange(-1, ordering: .acquiringAndReleasing)
    }
}
