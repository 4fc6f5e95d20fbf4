import Glibc
import Synchronization
import Testing
@testable import Lookout

/// The stop's one deadline, on a clock the test moves, and how MQTT's undelivered reports read.
@Suite("Stop deadline")
struct StopDeadlineTests {
    final class ManualClock: Sendable {
        let now = Atomic<Int64>(1_000_000_000)
        func advance(seconds: Double) { now.add(Int64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> Int64 { { [self] in now.load(ordering: .relaxed) } }
    }

    @Test func beforeTheStopEveryWaitKeepsItsOwnLimit() {
        let clock = ManualClock()
        let deadline = StopDeadline(clock: clock.read)
        #expect(!deadline.hasBegun)
        clock.advance(seconds: 100)
        #expect(deadline.remaining(atMost: 3) == 3)
        #expect(deadline.remaining(atMost: 12) == 12)
        #expect(deadline.remaining(atMost: -1) == 0)
    }

    @Test func onceBegunEveryWaitEndsAtTheSameTime() {
        let clock = ManualClock()
        let deadline = StopDeadline(clock: clock.read)
        deadline.begin(budget: 2)
        #expect(deadline.hasBegun)
        #expect(deadline.remaining(atMost: 3) == 2)
        #expect(deadline.remaining(atMost: 0.5) == 0.5)
        clock.advance(seconds: 1.5)
        #expect(deadline.remaining(atMost: 3) == 0.5)
        // A second signal does not move the end.
        deadline.begin(budget: 2)
        #expect(deadline.remaining(atMost: 3) == 0.5)
        clock.advance(seconds: 1)
        #expect(deadline.remaining(atMost: 3) == 0)
    }

    @Test func undeliveredMessagesAreOneLinePerCause() throws {
        let broker = try MQTTBrokerAddress("mqtt://user:secret@broker:1883/lookout")
        let report = MQTTUndeliveredReport()
        for sender in ["camera a", "camera b", "camera c"] { report.register(sender: sender) }
        report.add(sender: "the node", .init(messages: 1, cause: .noAnswer(seconds: 2.7)))
        report.add(sender: "camera b", .init(messages: 4, cause: .noAnswer(seconds: 2.31)))
        report.add(sender: "camera c", .init(messages: 2, cause: .cannotConnect("Connection refused")))
        report.add(sender: "camera a", .init(messages: 2, cause: .noAnswer(seconds: 12.5)))
        #expect(report.sentences(broker: broker) == [
            "MQTT: 7 messages to mqtt://user:***@broker:1883/lookout not delivered (camera a, camera b, the node): the broker did not answer within 2.3 s",
            "MQTT: 2 messages to mqtt://user:***@broker:1883/lookout not delivered (camera c): cannot connect (Connection refused)",
        ])
    }

    @Test func libmosquittoCodesAreWordsNeverUnknownError() {
        #expect(MQTTResultCode.words(for: 14, errno: Errno(rawValue: ECONNRESET)) == "Connection reset by peer")
        #expect(MQTTResultCode.words(for: 14, errno: Errno(rawValue: 0)) == "a system call failed without saying why")
        #expect(MQTTResultCode.words(for: 19, errno: Errno(rawValue: 0)) == "the broker did not answer within the keep-alive time")
        #expect(MQTTResultCode.words(for: 7, errno: Errno(rawValue: 0)) == "the connection was lost")
        #expect(MQTTResultCode.words(for: 99, errno: Errno(rawValue: 0)) == "libmosquitto error 99")
        for code in Int32(-4)...31 {
            #expect(!MQTTResultCode.words(for: code, errno: Errno(rawValue: 0)).localizedCaseInsensitiveContains("unknown"), "code \(code)")
        }
    }
}
