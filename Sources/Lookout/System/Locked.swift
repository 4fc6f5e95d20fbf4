#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock, used as `Synchronization.Mutex` is (`withLock { $0... }`), but locked
/// with a pthread mutex that ThreadSanitizer follows. On Linux, `Mutex` waits with futex system
/// calls TSan cannot see, so `swift test --sanitize=thread` reported every access under every
/// lock as a race, hiding any real one.
// @unchecked: the pthread mutex guards `value` (see above).
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
