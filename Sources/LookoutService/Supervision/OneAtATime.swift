import Synchronization

/// Runs async operations one at a time, each once the one asked before it has ended. A reload and
/// the finish await the web server's start and stop, so a lock cannot be held across them.
final class OneAtATime: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)

    /// Runs `operation` after every operation asked before it, and returns what it returns.
    func run<Value: Sendable, Failure: Error>(_ operation: @escaping @Sendable () async throws(Failure) -> Value) async throws(Failure) -> Value {
        let task = last.withLock { last -> Task<Result<Value, Failure>, Never> in
            let previous = last
            let task = Task<Result<Value, Failure>, Never> {
                await previous?.value
                do throws(Failure) { return .success(try await operation()) } catch { return .failure(error) }
            }
            last = Task { _ = await task.value }
            return task
        }
        return try await task.value.get()
    }
}
