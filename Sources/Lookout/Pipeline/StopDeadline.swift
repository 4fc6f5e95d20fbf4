import Synchronization

/// When a stop must be over. It starts once, when a stop signal comes (an input that ends is not
/// hurried: its hooks and MQTT get their own bounds);
/// every part that waits while stopping (MQTT delivery and disconnects, hooks, the web server)
/// waits until then at most, all at the same time: the stop's length does not grow with the
/// number of cameras or connections.
public final class StopDeadline: Sendable {
    /// What the CLI gives a stop, from the signal to the last wait: the whole stop, exit
    /// included, stays under 3 s (and under the unit's TimeoutStopSec).
    public static let budget = 2.0
    /// The one every part of the process shares.
    public static let shared = StopDeadline()

    private let clock: @Sendable () -> Int64
    /// Monotonic nanoseconds; `Int64.max` until the stop begins.
    private let end = Atomic<Int64>(.max)

    /// `clock` gives monotonic nanoseconds (injected by tests).
    public init(clock: @escaping @Sendable () -> Int64 = { MonotonicClock.nanoseconds() }) {
        self.clock = clock
    }

    /// The stop begins now and ends `budget` seconds later; a later call changes nothing.
    public func begin(budget: Double = StopDeadline.budget) {
        let end = clock() + Int64(budget * 1e9)
        _ = self.end.compareExchange(expected: .max, desired: end, ordering: .acquiringAndReleasing)
    }

    public var hasBegun: Bool { end.load(ordering: .acquiring) != .max }

    /// Seconds a wait may take now: `limit`, or less when the stop ends sooner (never negative).
    public func remaining(atMost limit: Double) -> Double {
        let end = end.load(ordering: .acquiring)
        guard end != .max else { return max(0, limit) }
        return max(0, min(limit, Double(end - clock()) / 1e9))
    }
}
