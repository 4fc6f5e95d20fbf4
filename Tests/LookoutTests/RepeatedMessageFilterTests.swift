import Logging
import Lookout
import Testing

/// `RepeatedMessageFilter` on times the test gives: a warning said once, then counted.
@Suite struct RepeatedMessageFilterTests {
    /// A clock the test moves.
    final class ManualClock: @unchecked Sendable {
        private let seconds = Locked(0.0)
        var now: Double {
            get { seconds.withLock { $0 } }
            set { seconds.withLock { $0 = newValue } }
        }
        var read: @Sendable () -> Double { { [self] in now } }
    }

    @Test func aWarningIsSaidOnceThenHeldBack() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        #expect(filter.lines(for: "disk full") == ["disk full"])
        for second in 1...59 {
            clock.now = Double(second)
            #expect(filter.lines(for: "disk full") == [], "at \(second) s")
        }
    }

    @Test func theCountIsSaidWithTheNextMessageOnceTheWindowIsOver() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        #expect(filter.lines(for: "a") == ["a"])
        clock.now = 10
        #expect(filter.lines(for: "a") == [])
        clock.now = 20
        #expect(filter.lines(for: "a") == [])
        // Within the window another text says nothing of a's count.
        clock.now = 59
        #expect(filter.lines(for: "b") == ["b"])
        // The window over: the next message, whatever its text, brings a's count first.
        clock.now = 61
        #expect(filter.lines(for: "c") == ["a (said 2 more times within 60 s)", "c"])
        // a was forgotten with its count said: said in full again.
        #expect(filter.lines(for: "a") == ["a"])
        // b had no repeat: its window ends without a summary.
        clock.now = 120
        #expect(filter.lines(for: "d") == ["d"])
        // The same text after its window: its count, then itself in full.
        clock.now = 100
        #expect(filter.lines(for: "a") == [])
        clock.now = 200
        #expect(filter.lines(for: "a") == ["a (said once more within 60 s)", "a"])
    }

    @Test func everyNRepeatsTheCountIsSaidAtOnce() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(summaryEvery: 3, clock: clock.read)
        #expect(filter.summaryEvery == 3)
        #expect(filter.lines(for: "a") == ["a"])
        clock.now = 1
        #expect(filter.lines(for: "a") == [])
        clock.now = 2
        #expect(filter.lines(for: "a") == [])
        clock.now = 3
        #expect(filter.lines(for: "a") == ["a (said 3 more times within 3 s)"])
        // The count starts again from there.
        clock.now = 4
        #expect(filter.lines(for: "a") == [])
        clock.now = 5
        #expect(filter.flush() == ["a (said once more within 2 s)"])
    }

    @Test func theDefaultsAreAMinuteAndAThousand() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        #expect(filter.window == 60 && filter.summaryEvery == 1000)
        #expect(filter.lines(for: "a") == ["a"])
        let held = (1..<1000).flatMap { _ in filter.lines(for: "a") }
        #expect(held == [])
        clock.now = 30
        #expect(filter.lines(for: "a") == ["a (said 1000 more times within 30 s)"])
    }

    @Test func distinctTextsAreEachSaid() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        #expect(filter.lines(for: "a") == ["a"])
        #expect(filter.lines(for: "b") == ["b"])
        #expect(filter.lines(for: "a") == [])
        #expect(filter.lines(for: "b") == [])
        // A number in the text makes it another message.
        #expect(filter.lines(for: "30 damaged frames") == ["30 damaged frames"])
        #expect(filter.lines(for: "60 damaged frames") == ["60 damaged frames"])
        clock.now = 1
        #expect(filter.flush() == ["a (said once more within 1 s)", "b (said once more within 1 s)"])
    }

    @Test func aFloodOfDistinctTextsKeepsAtMostTheRememberedOnes() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        let remembered = RepeatedMessageFilter.remembered
        #expect(remembered == 64)
        // The first text, repeated twice, then a flood: when it is forgotten its count is said.
        #expect(filter.lines(for: "first") == ["first"])
        #expect(filter.lines(for: "first") == [])
        #expect(filter.lines(for: "first") == [])
        clock.now = 2
        for index in 0..<(remembered - 1) { #expect(filter.lines(for: "flood \(index)") == ["flood \(index)"]) }
        clock.now = 5
        #expect(filter.lines(for: "flood \(remembered - 1)") == ["first (said 2 more times within 5 s)", "flood \(remembered - 1)"])
        // Ten thousand more texts (within the window): the last `remembered` are held back when
        // repeated, the one before them was forgotten (said in full).
        let count = 10_000
        for index in remembered..<count { _ = filter.lines(for: "flood \(index)") }
        let kept = (count - remembered)..<count
        #expect(kept.flatMap { filter.lines(for: "flood \($0)") } == [], "the last \(remembered) are remembered")
        clock.now = 9
        let forgotten = count - remembered - 1
        // Remembering it again forgets the oldest, with its one repeat counted.
        #expect(filter.lines(for: "flood \(forgotten)") == ["flood \(kept.lowerBound) (said once more within 4 s)", "flood \(forgotten)"])
        // What is held at the end is at most `remembered` counts.
        let flushed = filter.flush()
        #expect(flushed.count == remembered - 1)
        #expect(flushed == kept.dropFirst().map { "flood \($0) (said once more within 4 s)" })
    }

    @Test func flushSaysWhatIsHeldAndForgetsIt() {
        let clock = ManualClock()
        let filter = RepeatedMessageFilter(clock: clock.read)
        #expect(filter.flush() == [])
        #expect(filter.lines(for: "a") == ["a"])
        clock.now = 5
        #expect(filter.lines(for: "a") == [])
        #expect(filter.lines(for: "a") == [])
        #expect(filter.lines(for: "b") == ["b"])
        clock.now = 20
        // b was never repeated: nothing to say of it.
        #expect(filter.flush() == ["a (said 2 more times within 20 s)"])
        #expect(filter.flush() == [])
        // Forgotten: said in full again.
        #expect(filter.lines(for: "a") == ["a"])
        #expect(filter.lines(for: "b") == ["b"])
        // Under a second still reads 1 s.
        clock.now = 20.2
        #expect(filter.lines(for: "a") == [])
        #expect(filter.flush() == ["a (said once more within 1 s)"])
    }

    /// The log handler: warnings and worse through the filter, notices passed on each time.
    @Test func theLogHandlerFiltersWarningsAndPassesNoticesOn() {
        let said = Locked<[String]>([])
        let upstream = Logger(label: "test") { _ in
            DiagnosticsLogHandler(leveled: { level, message in said.withLock { $0.append("\(level): \(message)") } })
        }
        let clock = ManualClock()
        let logger = RepeatFilteringLogHandler.logger(forwardingTo: upstream, filter: RepeatedMessageFilter(clock: clock.read))
        for _ in 0..<3 {
            logger.warning("lost")
            logger.error("lost")
            logger.notice("back")
        }
        clock.now = 70
        logger.warning("other")
        #expect(said.withLock { $0 } == [
            "warning: lost", "notice: back", "notice: back", "notice: back",
            "warning: lost (said 5 more times within 60 s)", "warning: other",
        ])
    }
}
