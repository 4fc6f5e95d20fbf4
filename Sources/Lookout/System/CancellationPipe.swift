#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Wakes a thread blocked in poll() from any other thread: a non-blocking pipe whose read end goes
/// into the poll set, and a flag. Used by the file reader and the camera loop to stop promptly.
final class CancellationPipe: Sendable {
    /// Add this to the poll set; it becomes readable once `cancel()` was called.
    let readEnd: Int32
    private let writeEnd: Int32
    private let cancelled = Atomic<Bool>(false)

    init() throws(Errno) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .current }
        for end in fds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Sleeps up to `milliseconds`; returns false at once if cancelled (before or during).
    func sleep(milliseconds: Int32) -> Bool {
        if isCancelled { return false }
        var set = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        return poll(&set, 1, milliseconds) <= 0 && !isCancelled
    }
}
