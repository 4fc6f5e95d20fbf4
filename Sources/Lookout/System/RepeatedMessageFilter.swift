/// Says a repeated warning once, then counts it: the same text again within `window` seconds is
/// held back and counted, and the count is said once the window is over (with the next message
/// of any text, or `flush()` at the end), or at once every `summaryEvery` repeats. A full disk, a
/// flapping broker or a flood of Home Assistant restarts gives a few lines a minute, not one per
/// event. Messages whose text differs (a number in it) are different messages.
public final class RepeatedMessageFilter: Sendable {
    private struct Entry {
        var text: String
        /// When the text was last said in full.
        var saidAt: Double
        /// Times held back since.
        var heldBack = 0
    }

    public let window: Double
    public let summaryEvery: Int
    /// Texts remembered at most: a flood of distinct texts cannot grow memory.
    public static let remembered = 64
    private let clock: @Sendable () -> Double
    private let entries = Locked<[Entry]>([])

    public init(window: Double = 60, summaryEvery: Int = 1000, clock: @escaping @Sendable () -> Double = RepeatedMessageFilter.monotonicSeconds) {
        self.window = window
        self.summaryEvery = summaryEvery
        self.clock = clock
    }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonicSeconds() -> Double {
        Double(MonotonicClock.nanoseconds()) / 1e9
    }

    /// The lines to say for `text` now, in order: none while it is held back; summaries of texts
    /// whose window is over, then `text` itself when it is said.
    public func lines(for text: String) -> [String] {
        let now = clock()
        return entries.withLock { entries in
            var lines = Self.summaries(of: &entries, over: now - window, window: window)
            if let index = entries.firstIndex(where: { $0.text == text }) {
                if now - entries[index].saidAt < window {
                    entries[index].heldBack += 1
                    if entries[index].heldBack >= summaryEvery {
                        lines.append(Self.summary(entries[index], seconds: now - entries[index].saidAt))
                        entries[index].heldBack = 0
                        entries[index].saidAt = now
                    }
                    return lines
                }
                entries.remove(at: index)
            }
            if entries.count >= Self.remembered {
                let oldest = entries.removeFirst()
                if oldest.heldBack > 0 { lines.append(Self.summary(oldest, seconds: now - oldest.saidAt)) }
            }
            entries.append(Entry(text: text, saidAt: now))
            lines.append(text)
            return lines
        }
    }

    /// The counts not said yet (at the end of a run).
    public func flush() -> [String] {
        let now = clock()
        return entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.filter { $0.heldBack > 0 }.map { Self.summary($0, seconds: now - $0.saidAt) }
        }
    }

    /// Summaries of the entries said before `cutoff` with repeats held back (their count said, and reset).
    private static func summaries(of entries: inout [Entry], over cutoff: Double, window: Double) -> [String] {
        var lines: [String] = []
        entries.removeAll { entry in
            guard entry.saidAt <= cutoff else { return false }
            if entry.heldBack > 0 { lines.append(summary(entry, seconds: window)) }
            return true
        }
        return lines
    }

    private static func summary(_ entry: Entry, seconds: Double) -> String {
        let times = entry.heldBack == 1 ? "once more" : "\(entry.heldBack) more times"
        return "\(entry.text) (said \(times) within \(max(1, Int(seconds.rounded()))) s)"
    }
}
