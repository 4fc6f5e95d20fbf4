import Testing
@testable import Lookout

/// One rule for every warning about drops (MQTT's queue and outbox, hooks): the first drop, then
/// one line per `every` more.
@Suite("Drop warnings")
struct DropWarningTests {
    @Test func theFirstDropThenOnePerThousand() {
        var warning = DropWarning(every: 1000)
        let said = (1...3500).filter { warning.shouldSay($0) }
        #expect(said == [1, 1001, 2001, 3001])
    }

    @Test func countsSeenLateOrInJumpsAreSaidOnce() {
        var warning = DropWarning(every: 100)
        // Nothing dropped; the first count seen, whatever it is; not again for the same count;
        // under a hundred more; a jump, once.
        let said = [0, 40, 40, 139, 5000, 5050].map { warning.shouldSay($0) }
        #expect(said == [false, true, false, false, true, false])
    }
}
