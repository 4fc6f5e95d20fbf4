/// A barcode scanner's "same symbol timeout" (Zebra's "timeout between decodes, same symbol",
/// 0.5 s on a DS2208): a code is not typed again until it has been out of view this long. Code
/// events already come once per appearance (not again until gone for the events' `dedupe`); this
/// holds back what they let through sooner (a shorter `dedupe`, or one code read as two
/// symbologies in one frame). Times are the frames' presentation times, as the events' own.
struct SameSymbolTimeout {
    var timeout: MediaTime
    /// When each code (by its exact bytes) was last in view or typed.
    private var lastSeen: [[UInt8]: MediaTime] = [:]
    private var lastPruned = MediaTime.zero

    init(timeout: MediaTime) {
        self.timeout = timeout
    }

    /// True when the code read at `time` is to be typed: it was not in view within the timeout
    /// before. Either way it counts as seen at `time`.
    mutating func admits(_ payload: [UInt8], at time: MediaTime) -> Bool {
        defer { lastSeen[payload] = time }
        guard let seen = lastSeen[payload] else { return true }
        let gone = time.nanoseconds - seen.nanoseconds
        // A time that went back (an input started again) is a new appearance.
        return gone < 0 || gone >= timeout.nanoseconds
    }

    /// Notes the codes in view in the frame at `time` (after its events were decided).
    mutating func saw(_ payloads: [[UInt8]], at time: MediaTime) {
        for payload in payloads { lastSeen[payload] = time }
        // Forget codes gone longer than the timeout, at most once per timeout: flat memory
        // however many codes pass.
        guard time.nanoseconds - lastPruned.nanoseconds > max(timeout.nanoseconds, 1_000_000_000) else { return }
        lastPruned = time
        lastSeen = lastSeen.filter { time.nanoseconds - $0.value.nanoseconds < timeout.nanoseconds }
    }
}
