import Foundation
import Testing
@testable import Lookout

/// Home Assistant's `online` on a real mosquitto, a thousand at once: said once and counted, not
/// a line each; answered together, not one full republish each; and the node's own availability
/// is part of the answer, so entities that need it (`availability_mode: all`) come back after the
/// node's retained topic was lost on the broker.
@Suite("Home Assistant online floods, real broker", .serialized)
struct HomeAssistantFloodTests {
    static let prefix = "lookout-flood"
    static let node = prefix + "/available"

    static func publish(_ port: Int, _ arguments: [String], input: String? = nil) throws {
        let publisher = try BackgroundProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-q", "1"] + arguments,
                                              withInput: input != nil)
        if let input {
            try publisher.write(Data(input.utf8))
            try publisher.closeInput()
        }
        #expect(publisher.waitForExit() == 0, "\(publisher.errors.lines)")
    }

    @Test func aThousandOnlinesAreSaidOnceAnsweredTogetherAndBringTheNodeBack() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let discovery = HomeAssistantDiscovery(configuration: MQTTConfiguration(
            broker: try MQTTBrokerAddress("\(broker.url)/\(Self.prefix)"), clientID: "x").forCamera("cam"))
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--events", "changes",
                                                        "--mqtt", "\(broker.url)/\(Self.prefix)", "--ha-discovery"], withInput: true)
        try run.write(Data("YUV4MPEG2 W160 H120 F10:1 C420jpeg\nFRAME\n".utf8) + Data(repeating: 128, count: 160 * 120 * 3 / 2))
        let configTopic = discovery.presenceConfigTopic
        func count(_ topic: String, _ payload: String? = nil) -> Int {
            live.messages.filter { $0.topic == topic && (payload == nil || $0.payload == payload) }.count
        }
        #expect(live.wait(timeout: 60) { _ in count(configTopic) == 1 && count(Self.node, "online") == 1 }, "\(live.messages.map(\.topic))")

        // The node's retained availability lost on the broker (cleared): Home Assistant would show
        // every entity unavailable (`availability_mode: all`).
        try Self.publish(broker.port, ["-r", "-n", "-t", Self.node])
        #expect(live.wait(timeout: 60) { _ in count(Self.node, "") == 1 }, "\(live.messages.map(\.topic))")
        #expect(try Subscriber.retained(port: broker.port, topics: [Self.prefix + "/#"], probe: Self.prefix + "/probe1")[Self.node] == nil)

        // A thousand onlines reach Lookout while it is stopped, so that all of them are waiting
        // before the broker can acknowledge any answer: then one answer goes out at once and one
        // more for those that came while it was in flight.
        run.signal(SIGSTOP)
        try Self.publish(broker.port, ["-t", discovery.statusTopic, "-l"], input: String(repeating: "online\n", count: 1000))
        run.signal(SIGCONT)
        #expect(live.wait(timeout: 60) { _ in count(Self.node, "online") >= 2 }, "\(live.messages.map(\.topic))")
        #expect(try Subscriber.retained(port: broker.port, topics: [Self.prefix + "/#"], probe: Self.prefix + "/probe2")[Self.node] == "online")

        try run.closeInput()
        #expect(run.waitForExit() == 0, "\(run.errors.lines)")
        // Every message of the camera's connection arrives before its "offline", in order.
        #expect(live.wait(timeout: 60) { _ in count(Self.prefix + "/cam/available", "offline") == 1 })
        live.stop()
        let answers = count(configTopic) - 1
        #expect((1...3).contains(answers), "\(answers) answers to 1,000 onlines")
        #expect((2...4).contains(count(Self.node, "online")), "\(count(Self.node, "online"))")

        // One line when it starts, and the count at the end.
        let errors = run.errors.lines
        #expect(errors.filter { $0.contains("back online") }.count == 1, "\(errors)")
        let counted = errors.compactMap { $0.firstMatch(of: /Home Assistant said online (\d+) more times/).flatMap { Int($0.1) } }
        #expect(counted == [999], "\(errors)")
    }
}
