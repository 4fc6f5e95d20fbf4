/// The first of several outcomes offered from anywhere (the server listening, its task ending, a
/// deadline passing), awaited without blocking a thread: later offers are dropped.
struct FirstOutcome<Value: Sendable>: Sendable {
    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingOldest(1))
    }

    /// Offers `value`; only the first offer counts.
    func offer(_ value: Value) {
        continuation.yield(value)
    }

    /// The first value offered, or `late` once `limit` has passed without one.
    func wait(atMost limit: Duration, orElse late: Value) async -> Value {
        let deadline = Task { [continuation] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            continuation.yield(late)
        }
        defer {
            deadline.cancel()
            continuation.finish()
        }
        var first = stream.makeAsyncIterator()
        return await first.next() ?? late
    }
}
