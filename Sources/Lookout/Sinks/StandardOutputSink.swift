/// Writes the pipeline's lines to a file descriptor (standard output), one flush per analysed
/// frame, so that a consumer sees each code as soon as it is read. When the reader goes away
/// (`lookout | head -1`) it says so once, through `onClosed`, and writes nothing more.
// @unchecked: the line sink is used under `lock` or from the pipeline queue only.
public final class StandardOutputSink: EventSink, @unchecked Sendable {
    private let sink: LineSink
    private let onClosed: @Sendable () -> Void
    private let lock = Locked(false) // closed reported

    /// - Parameter onClosed: called once, when the descriptor can no longer be written.
    public init(fd: Int32, onClosed: @escaping @Sendable () -> Void) {
        sink = LineSink(fd: fd)
        self.onClosed = onClosed
    }

    /// The error that closed the output, when it was not a vanished reader.
    public var failure: Errno? { lock.withLock { _ in sink.failure } }
    public var isClosed: Bool { lock.withLock { _ in sink.isClosed } }

    public func consume(_ output: PipelineOutput) {
        write(output.lines)
    }

    /// Writes lines that are not results (the `--stats` line), from any thread.
    public func write(_ lines: [[UInt8]]) {
        let closedNow: Bool = lock.withLock { reported in
            guard !sink.isClosed, !lines.isEmpty else { return false }
            for line in lines { sink.append(line) }
            if sink.flush() || reported { return false }
            reported = true
            return true
        }
        if closedNow { onClosed() }
    }
}
