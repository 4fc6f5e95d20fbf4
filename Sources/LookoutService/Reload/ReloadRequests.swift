/// Reloads asked for (SIGHUP, or a host's own trigger), run one after the other. One asked while
/// another runs is run once after it, however often it was asked meanwhile: a burst of signals
/// is one more reload of the newest file, not one per signal.
public final class ReloadRequests: Sendable {
    private let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        // At most one request waits: the newest stands for every one before it.
        (requests, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a reload; from any thread (a signal handler's queue), never waits.
    public func ask() { continuation.yield() }

    /// Runs `reload` once for each request that stands, until `finish()`; a request asked before
    /// `finish()` is still run.
    public func run(_ reload: @Sendable () async -> Void) async {
        for await _ in requests { await reload() }
    }

    /// No more requests: `run` returns once the one waiting (if any) has run.
    public func finish() { continuation.finish() }
}
