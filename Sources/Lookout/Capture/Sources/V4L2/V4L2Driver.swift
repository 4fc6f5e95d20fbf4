import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// The handful of system calls a V4L2 capture needs, behind one seam: libv4l2 for real devices,
/// a scripted driver in tests for what real drivers cannot produce on demand (EINTR, EAGAIN storms,
/// sequence gaps, timestamps going backwards). Failures return -1 / nil and leave `errno` set.
protocol V4L2Driver: Sendable {
    func open(_ path: String) -> Int32
    func close(_ fd: Int32)
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    func mmap(length: Int, fd: Int32, offset: Int) -> UnsafeMutableRawPointer?
    func munmap(_ address: UnsafeMutableRawPointer, length: Int)
    /// Waits until `fd` has a frame, `cancelFD` is readable, or `timeoutMs` passes.
    func poll(fd: Int32, cancelFD: Int32, timeoutMs: Int32) -> V4L2PollResult
}

enum V4L2PollResult: Equatable {
    case ready
    case cancelled
    case timedOut
    /// The device reported POLLERR/POLLHUP (unplugged, or its format went away).
    case failed
    case error(Errno)
}

/// libv4l2: native formats pass through untouched; its mmap emulation requires v4l2_mmap.
struct LibV4L2Driver: V4L2Driver {
    func open(_ path: String) -> Int32 {
        path.withPlatformPath { lk_v4l2_open($0, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
    }

    func close(_ fd: Int32) {
        _ = lk_v4l2_close(fd)
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        lk_v4l2_ioctl(fd, request, argument)
    }

    func mmap(length: Int, fd: Int32, offset: Int) -> UnsafeMutableRawPointer? {
        let address = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset))
        return address == MAP_FAILED ? nil : address
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = v4l2_munmap(address, length)
    }

    func poll(fd: Int32, cancelFD: Int32, timeoutMs: Int32) -> V4L2PollResult {
        let result = pollCancellable(fd: fd, events: Int16(POLLIN), cancelFD: cancelFD, timeoutMs: timeoutMs)
        if result.count < 0 { return .error(.current) }
        if result.cancelled { return .cancelled }
        if result.count == 0 { return .timedOut }
        if result.events & Int16(POLLIN) != 0 { return .ready }
        return .failed
    }
}
