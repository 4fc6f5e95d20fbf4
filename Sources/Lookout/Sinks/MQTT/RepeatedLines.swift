/// Lines said once and then counted while the same thing keeps happening (a broker that keeps
/// closing the connection, Home Assistant saying `online` a thousand times): each key's repeats
/// are summarised when its window ends, a minute after it was said, then after twice as long each
/// time they go on (up to an hour); a window without repeats ends the series, and the next time
/// is said in full again. Unlike `RepeatedMessageFilter` (the same text within a minute, whatever
/// said it), the caller decides what counts as the same, so lines may carry numbers.
struct RepeatedLines<Key: Hashable> {
    static var firstWindow: Double { 60 }
    static var longestWindow: Double { 3600 }

    /// Repeats of a key, after the line was said in full.
    struct Summary {
        var key: Key
        var repeats: Int
        /// Seconds the repeats were counted over.
        var seconds: Double
    }

    private struct Series {
        var repeats = 0
        /// MonotonicClock nanoseconds.
        var windowStart: Int64
        var window: Double
        var windowEnd: Int64 { windowStart + Int64(window * 1e9) }
    }

    private var series: [Key: Series] = [:]

    /// Records that `key` happened at `now`; true when its line is to be said in full (the first
    /// time, or the first after a quiet window), false when it was counted.
    mutating func occurred(_ key: Key, now: Int64) -> Bool {
        if series[key] != nil {
            series[key]?.repeats += 1
            return false
        }
        series[key] = Series(windowStart: now, window: Self.firstWindow)
        return true
    }

    /// When the next window ends (MonotonicClock nanoseconds), nil while nothing is counted.
    var nextWindowEnd: Int64? { series.values.map(\.windowEnd).min() }

    /// The summaries of the windows over at `now`: a series with repeats goes on in a window twice
    /// as long; one without ends.
    mutating func summariesDue(now: Int64) -> [Summary] {
        var due: [Summary] = []
        for (key, entry) in series where entry.windowEnd <= now {
            if entry.repeats == 0 {
                series[key] = nil
                continue
            }
            due.append(Summary(key: key, repeats: entry.repeats, seconds: Double(now - entry.windowStart) / 1e9))
            series[key] = Series(windowStart: now, window: min(entry.window * 2, Self.longestWindow))
        }
        return due
    }

    /// Ends `key`'s series now (what it counted is over: the connection is back, the run ends);
    /// its repeats not yet said, if any.
    mutating func end(_ key: Key, now: Int64) -> Summary? {
        guard let entry = series.removeValue(forKey: key), entry.repeats > 0 else { return nil }
        return Summary(key: key, repeats: entry.repeats, seconds: Double(now - entry.windowStart) / 1e9)
    }

    /// Ends every series whose key matches; their repeats not yet said.
    mutating func end(where matches: (Key) -> Bool, now: Int64) -> [Summary] {
        series.keys.filter(matches).compactMap { end($0, now: now) }
    }

    /// "the last minute", "the last 4 minutes", "the last 12 s": the span a summary covers.
    static func span(_ seconds: Double) -> String {
        let whole = max(1, Int(seconds.rounded()))
        if whole < 60 { return "the last \(whole) s" }
        let minutes = Int((seconds / 60).rounded())
        return minutes <= 1 ? "the last minute" : "the last \(minutes) minutes"
    }
}
