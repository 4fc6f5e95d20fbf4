import Testing
@testable import Lookout

/// The waits between attempts to reach something lost, and the loss reported once.
@Suite("Backoff and loss")
struct BackoffTests {
    @Test func aCaptureWaitDoublesFromAQuarterSecondToFourAndStartsAgainAfterAReset() {
        var backoff = Backoff.capture
        var waits: [Int32] = []
        for _ in 0..<7 {
            waits.append(backoff.milliseconds)
            backoff.increase()
        }
        #expect(waits == [250, 500, 1000, 2000, 4000, 4000, 4000])
        backoff.reset()
        #expect(backoff.delay == 0.25)
    }

    @Test func aBrokerWaitDoublesFromOneSecondToItsLongest() {
        var backoff = Backoff(first: 1, longest: 30)
        for _ in 0..<10 { backoff.increase() }
        #expect(backoff.delay == 30)
    }

    @Test func aLossAndItsEndAreEachReportedOnce() {
        var loss = LossTracker()
        #expect(loss.restore() == false, "frames before any loss end nothing")
        #expect([loss.lose(), loss.lose(), loss.lose()] == [true, false, false])
        #expect(loss.isLost)
        #expect([loss.restore(), loss.restore()] == [true, false])
        #expect(loss.lose() == true, "a second loss is reported again")
    }
}

@Suite("Rising timestamps")
struct RisingTimestampTests {
    @Test func aTimestampAtOrBeforeTheLastBecomesTheLastPlusOne() {
        var stamps = RisingTimestamp()
        #expect([100, 100, 50, 200, 0, 201].map { stamps.next($0) } == [100, 101, 102, 200, 201, 202])
    }
}
