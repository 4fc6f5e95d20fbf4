#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reads a file or pipe and can be cancelled from another thread, so that stopping a session
/// never waits on a producer that has gone quiet (a pipe with no writer activity blocks `read`).
package final class FileDescriptorReader: Sendable {
    /// Path for messages ("standard input" for `-`).
    package let path: String
    package let fd: Int32
    private let ownsDescriptor: Bool
    /// True for a regular file (seekable, always readable); false for pipes, sockets, devices.
    package let isRegularFile: Bool
    private let cancellation: CancellationPipe

    package enum ReadResult: Equatable {
        case bytes(Int)
        case endOfFile
        case cancelled
    }

    /// Opens `path` for reading; `-` means standard input.
    package init(path: String) throws(MediaError) {
        if path == "-" {
            self.path = "standard input"
            self.fd = STDIN_FILENO
            self.ownsDescriptor = false
        } else {
            let fd = path.withPlatformPath { open($0, O_RDONLY | O_CLOEXEC) }
            if fd < 0 {
                let error = Errno.current
                if error == .noSuchFileOrDirectory { throw .notFound(path: path) }
                throw .unreadable(path: path, error)
            }
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw .unreadable(path: path, .isDirectory)
            }
            self.path = path
            self.fd = fd
            self.ownsDescriptor = true
        }
        var info = stat()
        self.isRegularFile = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        do throws(Errno) {
            cancellation = try CancellationPipe()
        } catch {
            if ownsDescriptor { close(fd) }
            throw .unreadable(path: path, error)
        }
    }

    /// Reads a descriptor Lookout opened (a pipe from a child process); closes it when done.
    /// `path` names it in messages.
    package init(descriptor: Int32, path: String) throws(MediaError) {
        self.path = path
        self.fd = descriptor
        self.ownsDescriptor = true
        self.isRegularFile = false
        do throws(Errno) {
            cancellation = try CancellationPipe()
        } catch {
            close(descriptor)
            throw .unreadable(path: path, error)
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Makes the current and every later read or wait return `.cancelled`.
    package func cancel() { cancellation.cancel() }

    package var isCancelled: Bool { cancellation.isCancelled }

    /// Reads up to `count` bytes; retries on EINTR.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(MediaError) -> ReadResult {
        while true {
            if isCancelled { return .cancelled }
            let ready = pollCancellable(fd: fd, events: Int16(POLLIN), cancelFD: cancellation.readEnd, timeoutMs: -1)
            if ready.count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, .current)
            }
            if ready.cancelled { return .cancelled }
            let n = Glibc.read(fd, buffer, count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfFile }
            if errno == EINTR || errno == EAGAIN { continue }
            throw .readFailed(path: path, .current)
        }
    }

    /// Reads exactly `count` bytes unless the stream ends or the read is cancelled first.
    /// Returns how many bytes arrived (less than `count` only at end of file or on cancel).
    package func readFully(into buffer: UnsafeMutableRawPointer, count: Int) throws(MediaError) -> Int {
        var total = 0
        while total < count {
            switch try read(into: buffer + total, count: count - total) {
            case .bytes(let n): total += n
            case .endOfFile, .cancelled: return total
            }
        }
        return total
    }

    /// Sleeps until the monotonic deadline (nanoseconds), or returns false at once on cancel.
    package func wait(untilMonotonicNanoseconds deadline: Int64) -> Bool {
        while true {
            if isCancelled { return false }
            let now = MonotonicClock.nanoseconds()
            if now >= deadline { return true }
            let remainingMs = Int32(min((deadline - now + 999_999) / 1_000_000, 1000))
            _ = cancellation.sleep(milliseconds: remainingMs)
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock V4L2 timestamps use too.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
