#if canImport(Glibc)
import Glibc
#endif

/// What `pollCancellable` saw.
struct CancellablePollResult {
    /// poll()'s return: -1 on error (errno set), 0 on timeout, else the number of ready descriptors.
    var count: Int32
    /// The events of the watched descriptor.
    var events: Int16
    /// The cancellation pipe became readable.
    var cancelled: Bool
}

/// poll() on one descriptor and a cancellation pipe's read end, with the poll set on the stack:
/// this runs once per frame on the capture thread, where a heap array per call is waste.
func pollCancellable(fd: Int32, events: Int16, cancelFD: Int32, timeoutMs: Int32) -> CancellablePollResult {
    var set = (pollfd(fd: fd, events: events, revents: 0), pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0))
    let count = withUnsafeMutableBytes(of: &set) { raw in
        poll(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, timeoutMs)
    }
    return CancellablePollResult(count: count, events: set.0.revents, cancelled: count > 0 && set.1.revents != 0)
}
