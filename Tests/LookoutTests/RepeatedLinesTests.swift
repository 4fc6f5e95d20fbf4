import Testing
@testable import Lookout

/// Lines said once and then counted (`RepeatedLines`), on times the test gives, and how a stop's
/// undelivered messages read when the cameras and the node waited different lengths.
@Suite("Repeated lines")
struct RepeatedLinesTests {
    static func at(_ seconds: Double) -> Int64 { Int64(seconds * 1e9) }

    @Test func theFirstIsSaidTheRepeatsAreCountedAndSummarisedWhenTheMinuteEnds() {
        var lines = RepeatedLines<String>()
        let first = lines.occurred("online", now: Self.at(0))
        let repeats = (1...999).map { lines.occurred("online", now: Self.at(Double($0) / 100)) }
        #expect(first && !repeats.contains(true))
        // Another key is its own line.
        let other = lines.occurred("lost", now: Self.at(5))
        #expect(other)
        #expect(lines.nextWindowEnd == Self.at(60))
        let early = lines.summariesDue(now: Self.at(59))
        #expect(early.isEmpty)
        let due = lines.summariesDue(now: Self.at(60))
        #expect(due.map(\.key) == ["online"] && due.map(\.repeats) == [999] && due.map(\.seconds) == [60])
        #expect(RepeatedLines<String>.span(due[0].seconds) == "the last minute")
    }

    @Test func whileItGoesOnEachWindowIsTwiceAsLongUpToAnHourAndAQuietOneEndsIt() {
        var lines = RepeatedLines<String>()
        var said = [lines.occurred("refused", now: 0)]
        var now = 0.0, windows: [Double] = []
        for _ in 0..<8 {
            now += 1
            said.append(lines.occurred("refused", now: Self.at(now)))
            guard let end = lines.nextWindowEnd else { break }
            now = Double(end) / 1e9
            windows += lines.summariesDue(now: end).map(\.seconds)
        }
        #expect(said == [true] + Array(repeating: false, count: 8))
        #expect(windows == [60, 120, 240, 480, 960, 1920, 3600, 3600])
        // A window without repeats ends the series: the next time is said in full.
        let end = lines.nextWindowEnd ?? 0
        let quiet = lines.summariesDue(now: end)
        #expect(quiet.isEmpty && lines.nextWindowEnd == nil)
        let again = lines.occurred("refused", now: end + 1)
        #expect(again)
    }

    @Test func endingASeriesGivesWhatItCountedNotYetSaid() throws {
        var lines = RepeatedLines<String>()
        let none = lines.end("online", now: 0)
        let first = lines.occurred("online", now: 0)
        let nothingCounted = lines.end("online", now: Self.at(1)) // nothing counted: nothing to say
        let again = lines.occurred("online", now: Self.at(2))
        #expect(none == nil && first && nothingCounted == nil && again)
        _ = lines.occurred("online", now: Self.at(3))
        _ = lines.occurred("lost a", now: Self.at(3))
        _ = lines.occurred("lost a", now: Self.at(4))
        let ended = lines.end(where: { $0.hasPrefix("lost") }, now: Self.at(14))
        #expect(ended.map(\.key) == ["lost a"] && ended.map(\.repeats) == [1])
        #expect(RepeatedLines<String>.span(try #require(ended.first).seconds) == "the last 11 s")
        #expect(RepeatedLines<String>.span(250) == "the last 4 minutes")
        let online = lines.end("online", now: Self.at(14))
        #expect(online?.repeats == 1)
    }

    @Test func theStopsWaitForAcknowledgementsIsTheLongestTheNoAnswerTheShortest() throws {
        let broker = try MQTTBrokerAddress("mqtt://broker:1883/lookout")
        let report = MQTTUndeliveredReport()
        for sender in ["camera a", "the node"] { report.register(sender: sender) }
        report.add(sender: "camera a", .init(messages: 4, cause: .notAcknowledged(seconds: 2.3)))
        report.add(sender: "the node", .init(messages: 2, cause: .notAcknowledged(seconds: 0.3)))
        #expect(report.sentences(broker: broker) == [
            "MQTT: 6 messages to mqtt://broker:1883/lookout not delivered (camera a, the node): the broker did not acknowledge them within 2.3 s",
        ])
    }
}
