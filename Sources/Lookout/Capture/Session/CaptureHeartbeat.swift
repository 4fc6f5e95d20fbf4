import Synchronization

/// A capture loop's sign of life, for a supervisor that restarts a process that hangs (systemd's
/// watchdog).
///
/// The loop beats at every frame its input returns (damaged ones too), and its input beats after
/// every wait it bounds itself (a camera's poll with its watchdog timeout, a reconnection's
/// backoff, a paced file's frame interval). The loop is alive while it is not running, or while
/// its last beat is at most `bound` old: twice the longest such wait, and never less than
/// `minimumBound`. A loop blocked beyond that (a read that never returns: a pipe whose writer
/// keeps it open and sends nothing, a driver stuck in an ioctl) is not alive.
///
/// A beat is one relaxed store of a time the loop reads anyway: nothing more per frame.
public final class CaptureHeartbeat: Sendable {
    /// The bound for inputs that wait on nothing of their own (files, pipes).
    public static let minimumBound = 10.0

    /// MonotonicClock nanoseconds of the last beat; 0 while the loop is not running.
    private let lastBeat = Atomic<Int64>(0)
    private let boundNanoseconds = Atomic<Int64>(Int64(minimumBound * 1e9))

    public init() {}

    /// The longest the running loop may go without a beat and still be alive, in seconds.
    public var bound: Double { Double(boundNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// The loop starts; its input's longest bounded wait is `longestWait` seconds.
    func start(longestWait: Double, now: Int64 = MonotonicClock.nanoseconds()) {
        boundNanoseconds.store(Int64(max(Self.minimumBound, 2 * longestWait) * 1e9), ordering: .relaxed)
        lastBeat.store(now, ordering: .relaxed)
    }

    func beat(at now: Int64) {
        lastBeat.store(now, ordering: .relaxed)
    }

    func beat() {
        beat(at: MonotonicClock.nanoseconds())
    }

    /// The loop has returned: not running is not hung.
    func stop() {
        lastBeat.store(0, ordering: .relaxed)
    }

    /// True while the loop is not running or beat within `bound` of `now`.
    public func isAlive(at now: Int64 = MonotonicClock.nanoseconds()) -> Bool {
        let last = lastBeat.load(ordering: .relaxed)
        return last == 0 || now - last <= boundNanoseconds.load(ordering: .relaxed)
    }

    /// How long ago the running loop last beat, in seconds; nil when it is not running.
    public func silence(at now: Int64 = MonotonicClock.nanoseconds()) -> Double? {
        let last = lastBeat.load(ordering: .relaxed)
        return last == 0 ? nil : Double(now - last) / 1e9
    }
}
