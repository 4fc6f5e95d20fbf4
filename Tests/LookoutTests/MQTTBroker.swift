import Foundation
import Synchronization
import Testing

/// A real mosquitto broker on a free loopback port, in a scratch folder (config, persistence).
final class MQTTBroker {
    let port: Int
    let folder: ScratchFolder
    private let configuration: String
    private var process: BackgroundProcess?

    /// - Parameters:
    ///   - persistent: keeps sessions and queued QoS 1 messages across a restart.
    ///   - listener: extra lines for the listener (TLS files, password file).
    init(persistent: Bool = false, listener: String = "allow_anonymous true") throws {
        folder = try ScratchFolder()
        // Started as root, mosquitto drops to the "mosquitto" user, which must be able to write
        // its persistence file here.
        chmod(folder.path, 0o777)
        port = try TestPort.lease()
        configuration = folder.path + "/mosquitto.conf"
        let text = """
            per_listener_settings true
            listener \(port) 127.0.0.1
            \(listener)
            persistence \(persistent)
            persistence_location \(folder.path)/
            log_dest stderr
            """
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// What mosquitto logged so far (its standard error: connections, with their client IDs).
    var log: [String] { process?.errors.lines ?? [] }

    func start() throws {
        let broker = try BackgroundProcess("/usr/sbin/mosquitto", ["-c", configuration])
        process = broker
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if TestPort.accepts(port: port) { return }
            if !broker.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("mosquitto did not start: \(broker.errors.lines.joined(separator: "\n"))")
    }

    /// Stops the broker as an administrator would (SIGTERM: it saves persistent sessions).
    func stop() {
        guard let process else { return }
        process.signal(SIGTERM)
        process.waitForExit(timeout: 10)
        self.process = nil
    }

    deinit { stop() }
}

/// One message as `mosquitto_sub -F '%r %q %t %p'` prints it.
struct ReceivedMessage {
    var retained: Bool
    /// The QoS it was delivered with: the lower of the publisher's and the subscription's (1).
    var qos: Int
    var topic: String
    var payload: String

    init?(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, let qos = Int(parts[1]) else { return nil }
        retained = parts[0] == "1"
        self.qos = qos
        topic = String(parts[2])
        payload = parts.count > 3 ? String(parts[3]) : ""
    }

    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] }
}

/// A real subscriber: mosquitto_sub at QoS 1, printing the retain flag, topic and payload.
final class Subscriber {
    let client: BackgroundProcess

    /// - Parameter sessionID: a persistent session (clean session off) under this client ID, so
    ///   the broker keeps QoS 1 messages for it while it is away.
    init(port: Int, topics: [String], sessionID: String? = nil, extra: [String] = []) throws {
        var arguments = ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-F", "%r %q %t %p"] + extra
        if let sessionID { arguments += ["-c", "-i", sessionID] }
        for topic in topics { arguments += ["-t", topic] }
        client = try BackgroundProcess("/usr/bin/mosquitto_sub", arguments)
    }

    var messages: [ReceivedMessage] { client.output.lines.compactMap(ReceivedMessage.init) }

    func wait(timeout: Double, until condition: ([ReceivedMessage]) -> Bool) -> Bool {
        client.output.wait(timeout: timeout) { lines in condition(lines.compactMap(ReceivedMessage.init)) }
    }

    func stop() {
        client.signal(SIGTERM)
        client.waitForExit(timeout: 5)
    }
}

extension Subscriber {
    /// A persistent broker, stopped once a subscriber with a persistent session (`sessionID`) is
    /// in place on `topics`: what is published while it is down reaches the subscriber when it
    /// is started again.
    static func onStoppedBroker(topics: [String], probe: String, sessionID: String) throws -> (MQTTBroker, Subscriber) {
        let broker = try MQTTBroker(persistent: true)
        try broker.start()
        let subscriber = try Subscriber(port: broker.port, topics: topics, sessionID: sessionID)
        try subscriber.waitUntilSubscribed(port: broker.port, topic: probe)
        broker.stop()
        return (broker, subscriber)
    }

    /// The retained payloads, by topic, that a subscriber to `topics` arriving now is sent (the
    /// broker sends them on subscribing, before the probe published to `probe` afterwards).
    static func retained(port: Int, topics: [String], probe: String) throws -> [String: String] {
        let late = try Subscriber(port: port, topics: topics)
        try late.waitUntilSubscribed(port: port, topic: probe)
        late.stop()
        return Dictionary(late.messages.filter(\.retained).map { ($0.topic, $0.payload) }) { $1 }
    }

    /// Publishes probes to `topic` (one the subscriber listens to) until one arrives: from then on
    /// the subscription is in place.
    func waitUntilSubscribed(port: Int, topic: String, extra: [String] = []) throws {
        for _ in 0..<50 {
            let probe = try BackgroundProcess("/usr/bin/mosquitto_pub",
                                              ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic, "-m", "probe"] + extra)
            probe.waitForExit(timeout: 5)
            if wait(timeout: 0.2, until: { $0.contains { $0.topic == topic } }) { return }
        }
        Issue.record("the subscriber never received a probe on \(topic)")
    }
}
