import Dispatch

/// Blocking work awaited from async code: it runs on a queue of its own (a thread GCD adds for
/// it), never on a thread of Swift's cooperative pool, which has only as many as processors.
enum Blocking {
    static func run<Value: Sendable>(label: String, _ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: label).async { continuation.resume(returning: work()) }
        }
    }
}
