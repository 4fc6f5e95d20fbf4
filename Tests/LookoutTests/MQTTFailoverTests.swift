import Foundation
import Testing
@testable import Lookout
import LookoutService

/// Several brokers of one fabric: the address list, and a real Lookout failing over between two
/// real mosquitto brokers, saying which one it uses.
@Suite("MQTT failover")
struct MQTTFailoverTests {
    @Test func aListNamesEachBrokerWithOnePrefix() throws {
        let list = try MQTTBrokerList("mqtt://a:1883,mqtt://user:pa,ss@b:1884/site/door,mqtt://[::1]")
        #expect(list.addresses.map(\.host) == ["a", "b", "::1"])
        #expect(list.addresses.map(\.port) == [1883, 1884, 1883])
        #expect(list.addresses.map(\.topicPrefix) == ["site/door", "site/door", "site/door"])
        // A comma inside a password is not a cut: only one before the next address is.
        #expect(list.addresses[1].password == "pa,ss")
        #expect(list.redacted == "mqtt://a:1883/site/door,mqtt://user:***@b:1884/site/door,mqtt://[::1]:1883/site/door")
        #expect(try MQTTBrokerList("mqtts://one/x").addresses.map(\.usesTLS) == [true])
        #expect(try MQTTBrokerList(["mqtt://a", "mqtt://b"]).topicPrefix == "lookout")
    }

    @Test(arguments: [
        ("mqtt://a/one,mqtt://b/two", "different topic prefixes (one, two)"),
        ("mqtt://a,mqtts://b", "mqtt:// and mqtts:// addresses are mixed"),
        ("mqtt://a:1883,mqtt://A", "mqtt://A:1883/lookout is given twice"),
        ("mqtt://a,mqtt://", "no host"),
        ("mqtt://a,http://b", "'http://b': it must start with mqtt:// or mqtts://"),
    ])
    func aListThatIsNotOneFabricIsRefused(text: String, reason: String) {
        #expect(throws: MQTTError.self) { try MQTTBrokerList(text) }
        do { _ = try MQTTBrokerList(text) } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func tooManyBrokersAreRefused() {
        let many = (1...17).map { "mqtt://host\($0)" }.joined(separator: ",")
        #expect(throws: MQTTError.invalidURL(many, reason: "17 brokers; at most 16")) { try MQTTBrokerList(many) }
    }

    /// The file's `mqtt:` takes a list; it is kept and printed back as one, passwords hidden.
    @Test func theConfigurationFileTakesAListOfBrokers() throws {
        let configuration = try ConfigurationFile.parse("""
            mqtt:
              mqtt: [mqtt://u:secret@a:1883, mqtt://b:1884/site]
            cameras:
              door:
                input: \(Fixtures.path("sample.mjpeg"))
            """, file: "lookout.yml")
        #expect(configuration.settings.mqtt == "mqtt://u:secret@a:1883,mqtt://b:1884/site")
        let printed = ConfigurationWriter.yaml(ConfigurationWriter.value(of: configuration, redactingSecrets: true))
        #expect(printed.contains(#"mqtt: ["mqtt://u:***@a:1883", "mqtt://b:1884/site"]"#), "\(printed)")
        #expect(!printed.contains("secret"))
        #expect(throws: ConfigurationProblems.self) {
            try ConfigurationFile.parse("mqtt:\n  mqtt: [mqtt://a/one, mqtt://b/two]\n", file: "lookout.yml")
        }
    }

    /// The first broker is down: Lookout uses the second. Then the second goes and the first
    /// comes: it fails over, delivers every event there, and its stats name the broker in use.
    @Test func lookoutFailsOverToTheNextBrokerAndSaysWhichItUses() throws {
        let first = try MQTTBroker(), second = try MQTTBroker()
        try second.start()
        let onSecond = try Subscriber(port: second.port, topics: [MQTTTests.camera + "/events"])
        try onSecond.waitUntilSubscribed(port: second.port, topic: MQTTTests.camera + "/events")
        let list = "mqtt://127.0.0.1:\(first.port),mqtt://127.0.0.1:\(second.port)/\(MQTTTests.prefix)"
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--dedupe", "300ms", "--events", "changes",
                                                        "--code-scan-rate", "0", "--stats", "--mqtt", list], withInput: true)
        let clip = try MQTTTests.codeClip()
        try run.write(clip)
        #expect(onSecond.wait(timeout: 60) { MQTTTests.codeEvents($0) == [0, 15, 60] }, "\(run.errors.lines)")
        #expect(run.errors.lines.contains { $0.contains("cannot connect to mqtt://127.0.0.1:\(first.port)/") && $0.contains("trying mqtt://127.0.0.1:\(second.port)/") })

        try first.start()
        let onFirst = try Subscriber(port: first.port, topics: [MQTTTests.camera + "/events"])
        try onFirst.waitUntilSubscribed(port: first.port, topic: MQTTTests.camera + "/events")
        second.stop()
        #expect(run.errors.wait(timeout: 60) { $0.contains { $0.contains("failed over to mqtt://127.0.0.1:\(first.port)/") } }, "\(run.errors.lines)")
        try run.write(clip)
        #expect(onFirst.wait(timeout: 60) { MQTTTests.codeEvents($0) == [80, 95, 140] }, "\(run.errors.lines)")
        try run.closeInput()
        #expect(run.waitForExit() == 0)
        let stats = try #require(run.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["kind"] as? String == "stats" })
        let mqtt = try #require((stats["mqtt"] as? [String: Any]) ?? ((stats["cameras"] as? [[String: Any]])?.first?["mqtt"] as? [String: Any]),
                                "\(stats)")
        #expect(mqtt["broker"] as? String == "mqtt://127.0.0.1:\(first.port)/\(MQTTTests.prefix)")
        #expect(mqtt["connected"] as? Bool == true)
        onFirst.stop()
        onSecond.stop()
    }
}
