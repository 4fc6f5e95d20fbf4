import Foundation
import Testing

/// Lookout against fake brokers that misbehave (`Tests/Support/mqtt-misbehave.py`): one that
/// closes each connection right after accepting it is retried with doubling waits and said once,
/// and at the end of the input every kind of misbehaviour ends with status 0 and one sentence of
/// what was not delivered, within the documented bound. (The time a stop takes is measured, not
/// tested: scripts/bench.d/stop_time.py.)
@Suite("MQTT, misbehaving brokers", .serialized)
struct MQTTMisbehavingBrokerTests {
    /// The fake broker in `mode` on a free port; its output says each connection and packet.
    static func fakeBroker(_ mode: String) throws -> (BackgroundProcess, port: Int) {
        let broker = try BackgroundProcess("/usr/bin/python3", [Fixtures.packageRoot + "/Tests/Support/mqtt-misbehave.py", mode])
        try #require(broker.output.wait(timeout: 30) { $0.first?.hasPrefix("listening ") == true }, "\(broker.errors.lines)")
        let port = try #require(broker.output.lines.first.flatMap { Int($0.dropFirst("listening ".count)) }, "\(broker.output.lines)")
        return (broker, port)
    }

    /// When the client whose ID ends with `suffix` sent each CONNECT (the broker's monotonic seconds).
    static func connects(_ broker: BackgroundProcess, clientEndingWith suffix: String) -> [Double] {
        broker.output.lines.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, parts[1] == "CONNECT", parts[2].hasSuffix(suffix) else { return nil }
            return Double(parts[3])
        }
    }

    @Test func aBrokerThatClosesRightAfterAcceptingIsRetriedWithDoublingWaitsAndSaidOnce() throws {
        let (broker, port) = try Self.fakeBroker("connack-close")
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--mqtt", "mqtt://127.0.0.1:\(port)/lookout"],
                                        withInput: true)
        // One frame, and standard input stays open: the run lasts as long as the test wants.
        try run.write(Data("YUV4MPEG2 W160 H120 F10:1 C420jpeg\nFRAME\n".utf8) + Data(repeating: 128, count: 160 * 120 * 3 / 2))
        // Five connections of the camera's client: four waits between them (1 + 2 + 4 + 8 s).
        try #require(broker.output.wait(timeout: 120) { _ in Self.connects(broker, clientEndingWith: "-cam").count >= 5 },
                     "\(broker.output.lines) \(run.errors.lines)")
        try run.closeInput()
        #expect(run.waitForExit() == 0, "\(run.errors.lines)")
        broker.signal(SIGKILL)

        // Each wait at least the doubled delay (a loaded machine only makes them longer); without
        // the doubling, every wait after a connection that was accepted was 1 s.
        let times = Self.connects(broker, clientEndingWith: "-cam")
        let waits = zip(times.dropFirst(), times).map { $0 - $1 }
        for (index, wait) in waits.prefix(4).enumerated() {
            #expect(wait >= 0.9 * Double(1 << index), "wait \(index + 1): \(wait) s; all: \(waits)")
        }
        // Said once per connection (the node's and the camera's alike may be folded into one), not
        // once per attempt; "reconnected" once per connection (after the first loss: a broker that
        // restarted would be back), not for the connections after the next losses.
        let errors = run.errors.lines
        let said = errors.filter { $0.contains("lost within 10 s of being accepted") && $0.contains("; retrying") }
        #expect((1...2).contains(said.count), "\(errors)")
        #expect(errors.filter { $0.contains("reconnected") }.count <= 2, "\(errors)")
        // The repeats counted, and said at the end: the camera's connection lost at least 3 more times.
        let counts = errors.compactMap { line in
            line.firstMatch(of: /lost within 10 s of being accepted \(.*\), (\d+) more times? in the last/).flatMap { Int($0.1) }
        }
        #expect(counts.contains { $0 >= 3 }, "\(errors)")
    }

    /// Each way a broker can misbehave, and the cause the end-of-input line gives. The modes whose
    /// broker closes may be caught at the end in a new attempt, still without an answer.
    static let misbehaviours: [(mode: String, causes: [String])] = [
        ("silent", ["the broker did not answer within "]),
        ("close", ["cannot connect (the connection was lost)", "the broker did not answer within "]),
        ("connack-close", ["the connection was lost (the connection was lost)", "the broker did not answer within "]),
        ("bad-connack", ["cannot connect (the broker broke the MQTT protocol)", "the broker did not answer within "]),
        ("bad-puback", ["the connection was lost (the broker broke the MQTT protocol)", "the broker did not answer within "]),
        ("no-puback", ["the broker did not acknowledge them within "]),
    ]

    @Test(arguments: misbehaviours.map(\.mode))
    func atTheEndOfTheInputAMisbehavingBrokerIsGivenUpOnWithinTheBound(mode: String) throws {
        let causes = try #require(Self.misbehaviours.first { $0.mode == mode }?.causes)
        let (broker, port) = try Self.fakeBroker(mode)
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "-q", "--mqtt", "mqtt://127.0.0.1:\(port)/lookout"])
        broker.signal(SIGKILL)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(broker.output.lines.contains { $0.hasPrefix("connection ") }, "\(broker.output.lines)")
        let undelivered = result.stderr.split(separator: "\n").map(String.init).filter { $0.contains("not delivered") }
        try #require(!undelivered.isEmpty, "\(result.stderr)")
        #expect(undelivered.joined().contains("camera sample") && undelivered.joined().contains("the node"), "\(undelivered)")
        for line in undelivered {
            let cause = try #require(line.firstMatch(of: /not delivered \([^)]*\): (.*)$/).map { String($0.1) }, "\(line)")
            #expect(causes.contains { cause.hasPrefix($0) }, "\(line)")
            // The wait for acknowledgements is the stop's own: within the documented 3 s.
            if let seconds = line.firstMatch(of: /did not acknowledge them within ([0-9.]+) s/).flatMap({ Double($0.1) }) {
                #expect(seconds <= 3, "\(line)")
            }
        }
        #expect(!result.stderr.localizedCaseInsensitiveContains("unknown error"), "\(result.stderr)")
    }
}
