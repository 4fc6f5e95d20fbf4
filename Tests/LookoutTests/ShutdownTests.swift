import Foundation
import Testing

/// Stopping with MQTT brokers that do not behave: a broker that accepts TCP and never answers,
/// one that refuses connections. The stop ends with status 0 and one sentence saying what was not
/// delivered and why. (How long a stop takes is measured by scripts/bench.d/stop_time.py.)
@Suite("Shutdown", .serialized)
struct ShutdownTests {
    /// A TCP listener on a free loopback port that accepts every connection and never answers;
    /// prints its port, then "accepted N" for each connection.
    static func silentBroker() throws -> (BackgroundProcess, port: Int) {
        let script = """
            import socket
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(64)
            print(s.getsockname()[1], flush=True)
            held = []
            while True:
                held.append(s.accept())
                print("accepted", len(held), flush=True)
            """
        let broker = try BackgroundProcess("/usr/bin/python3", ["-c", script])
        try #require(broker.output.wait(timeout: 30) { !$0.isEmpty }, "\(broker.errors.lines)")
        let port = try #require(broker.output.lines.first.flatMap { Int($0) }, "\(broker.output.lines)")
        return (broker, port)
    }

    static let cameras = (1...6).map { "cam\($0)" }

    /// Six paced cameras publishing to `port`.
    static func sixCameras(port: Int) throws -> BackgroundProcess {
        let inputs = cameras.flatMap { ["--input", "\($0)=\(SignalTests.pacedClip)"] }
        return try BackgroundProcess(lookoutBinary, ["run"] + inputs + ["--fps", "10", "--realtime", "--mqtt", "mqtt://127.0.0.1:\(port)/lookout"])
    }

    /// The lines saying what MQTT did not deliver.
    static func undeliveredLines(_ process: BackgroundProcess) -> [String] {
        process.errors.lines.filter { $0.contains("not delivered") }
    }

    static let senders = "(" + cameras.map { "camera " + $0 }.joined(separator: ", ") + ", the node)"

    @Test func sixCamerasBehindASilentBrokerStopCleanlyAndSayWhatWasLost() throws {
        let (broker, port) = try Self.silentBroker()
        let process = try Self.sixCameras(port: port)
        // Every connection made (six cameras and the node), and every camera streaming.
        try #require(broker.output.wait(timeout: 60) { $0.contains("accepted 7") }, "\(broker.output.lines) \(process.errors.lines)")
        process.signal(SIGUSR1)
        try #require(process.errors.wait(timeout: 60) { lines in Self.cameras.allSatisfy { camera in lines.contains { $0.hasPrefix("lookout: \(camera) (") } } },
                     "\(process.errors.lines)")
        process.signal(SIGTERM)
        let status = process.waitForExit(timeout: 60)
        #expect(status == 0, "\(process.errors.lines)")
        let lines = Self.undeliveredLines(process)
        try #require(lines.count == 1, "\(process.errors.lines)")
        let line = try #require(lines.first)
        // Each camera: availability and presence; the node: its availability.
        let prefix = "lookout: MQTT: 13 messages to mqtt://127.0.0.1:\(port)/lookout not delivered \(Self.senders): the broker did not answer within "
        #expect(line.hasPrefix(prefix) && line.hasSuffix(" s"), "\(line)")
        #expect(!process.errors.lines.contains { $0.localizedCaseInsensitiveContains("unknown error") }, "\(process.errors.lines)")
        // The summary of every camera.
        #expect(process.errors.lines.filter { $0.contains("frames read") }.count == 12, "\(process.errors.lines)")
        broker.signal(SIGKILL)
    }

    @Test func aWebServerThatCannotListenEndsTheMQTTConnectionsCleanly() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let (listener, port) = try WebServerTests.portInUse()
        defer { close(listener) }
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--mqtt", broker.url + "/webfail",
                                  "--http", "127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(result.stderr == "lookout: cannot listen on 127.0.0.1:\(port): Address already in use\n", "\(result.stderr)")
        // The node and the camera's connection say goodbye (offline, then DISCONNECT) rather than
        // leave their wills to the broker: what was made before the web server failed is finished.
        let goodbyes = { broker.log.filter { $0.hasSuffix(" disconnected.") }.count }
        #expect(eventually { goodbyes() == 2 }, "\(broker.log)")
        #expect(!broker.log.contains { $0.contains("webfail") && $0.contains("closed its connection") }, "\(broker.log)")
    }

    @Test func aRefusingBrokerIsNamedWithItsCause() throws {
        let port = try TestPort.lease()
        let process = try Self.sixCameras(port: port)
        let refused = "lookout: MQTT: cannot connect to mqtt://127.0.0.1:\(port)/lookout: Connection refused; retrying"
        try #require(process.errors.wait(timeout: 60) { $0.contains(refused) }, "\(process.errors.lines)")
        process.signal(SIGTERM)
        let status = process.waitForExit(timeout: 60)
        #expect(status == 0, "\(process.errors.lines)")
        #expect(Self.undeliveredLines(process) == [
            "lookout: MQTT: 13 messages to mqtt://127.0.0.1:\(port)/lookout not delivered \(Self.senders): cannot connect (Connection refused)"
        ], "\(process.errors.lines)")
        // The seven connections' one complaint is said once, and the other six counted at the end.
        let said = process.errors.lines.filter { $0.hasPrefix(refused) }
        #expect(said.count == 2 && said.first == refused && said.last?.hasPrefix(refused + " (said 6 more times within ") == true, "\(said)")
    }

    @Test func aBrokerThatAnswersGetsEverythingAndNoComplaint() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let subscriber = try Subscriber(port: broker.port, topics: ["lookout/#"])
        defer { subscriber.stop() }
        try subscriber.waitUntilSubscribed(port: broker.port, topic: "lookout/probe")
        let process = try Self.sixCameras(port: broker.port)
        // Every camera online before the stop.
        try #require(subscriber.wait(timeout: 60) { messages in
            Self.cameras.allSatisfy { camera in messages.contains { $0.topic == "lookout/\(camera)/available" && $0.payload == "online" } }
        }, "\(subscriber.messages.map(\.topic))")
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines)")
        #expect(Self.undeliveredLines(process).isEmpty, "\(process.errors.lines)")
        // Every camera, and the node last, said "offline" themselves.
        #expect(subscriber.wait(timeout: 30) { messages in
            (Self.cameras.map { "lookout/\($0)/available" } + ["lookout/available"]).allSatisfy { topic in
                messages.last { $0.topic == topic }?.payload == "offline"
            }
        }, "\(subscriber.messages.map { "\($0.topic) \($0.payload)" })")
    }

    @Test func aHookStillRunningDoesNotHoldTheStop() throws {
        let scratch = try ScratchFolder()
        let hang = try scratch.script("hang", "echo $$ > \"$0.pid\"\nexec sleep 30\n")
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("events-codes.mjpeg"), "--realtime", "--fps", "10",
                                                           "--events", "changes", "--on-code", hang, "--hook-timeout", "60s"])
        try #require(process.output.wait(timeout: 60) { $0.contains { $0.contains("\"kind\":\"code\"") } }, "\(process.errors.lines)")
        process.signal(SIGTERM)
        // Its own bound (60 s and two more) is cut to the stop's: it is stopped as at its timeout,
        // said once, and does not outlive Lookout.
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines)")
        #expect(process.errors.lines.filter { $0.contains("still running at exit") }
                    == ["lookout: hook --on-code: 1 still running at exit; stopped (SIGTERM)"], "\(process.errors.lines)")
        let pid = try #require(scratch.read("hang.pid").flatMap { Int32(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) })
        // Gone, or a zombie waiting for whoever adopted it.
        let ended = eventually(timeout: 30) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.contains(") Z ")
        }
        #expect(ended, "the hook (pid \(pid)) outlived Lookout")
        if !ended { kill(pid, SIGKILL) }
    }
}
