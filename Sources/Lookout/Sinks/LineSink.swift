#if canImport(Glibc)
import Glibc
#endif

/// Buffers output lines and writes them to a file descriptor in as few `write` calls as possible.
///
/// When the reader goes away (`lookout | head -1`), writes fail with EPIPE (SIGPIPE must be
/// ignored); the sink then reports itself closed so the caller can stop quietly.
public final class LineSink {
    public let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var isClosed = false
    /// The error that closed the sink, when it was not a vanished reader.
    public private(set) var failure: Errno?

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(64 << 10)
    }

    public func append(_ line: [UInt8]) {
        guard !isClosed else { return }
        buffer.append(contentsOf: line)
    }

    /// Writes everything buffered. Returns false once the sink is closed.
    @discardableResult
    public func flush() -> Bool {
        guard !isClosed else { return false }
        var written = 0
        let total = buffer.count
        while written < total {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, total - written) }
            if n >= 0 {
                written += n
                continue
            }
            let error = Errno.current
            if error == .interrupted { continue }
            if error.rawValue == EAGAIN {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 100)
                continue
            }
            isClosed = true
            if error != .brokenPipe { failure = error }
            buffer.removeAll(keepingCapacity: true)
            return false
        }
        buffer.removeAll(keepingCapacity: true)
        return true
    }
}
