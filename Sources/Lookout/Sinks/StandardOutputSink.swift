/// Writes the pipeline's lines to a file descriptor (standard output), one flush per analysed
/// frame, so that a consumer sees each code as soon as it is read. When the reader goes away
/// (`lookout | head -1`) it says so once, through `onClosed`, and writes nothing more.
public final class StandardOutputSink: EventSink, Sendable {
    /// The line sink, used under its lock only (the pipeline's lines and the `--stats` line come
    /// from different threads), and whether its closing was reported.
    private struct Output {
        let sink: LineSink
        var closedReported = false
    }
    private let output: Locked<Output>
    private let onClosed: @Sendable () -> Void

    /// - Parameters:
    ///   - fd: the descriptor lines are written to (standard output's, 1, as a rule).
    ///   - onClosed: called once, when the descriptor can no longer be written.
    public init(fd: Int32, onClosed: @escaping @Sendable () -> Void) {
        output = Locked(Output(sink: LineSink(fd: fd)))
        self.onClosed = onClosed
    }

    /// The error that closed the output, when it was not a vanished reader.
    public var failure: Errno? { output.withLock { $0.sink.failure } }
    public var isClosed: Bool { output.withLock { $0.sink.isClosed } }

    public func consume(_ output: PipelineOutput) {
        write(output.lines)
    }

    /// Writes lines that are not results (the `--stats` line), from any thread.
    public func write(_ lines: [[UInt8]]) {
        let closedNow: Bool = output.withLock { output in
            guard !output.sink.isClosed, !lines.isEmpty else { return false }
            for line in lines { output.sink.append(line) }
            if output.sink.flush() || output.closedReported { return false }
            output.closedReported = true
            return true
        }
        if closedNow { onClosed() }
    }
}
