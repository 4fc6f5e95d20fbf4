import Foundation
import Testing
@testable import Lookout

/// MQTT output against a real mosquitto broker and mosquitto_sub, both from Debian.
@Suite("MQTT, real broker", .serialized)
struct MQTTTests {
    static let prefix = "lookout-test"
    /// The topics of the camera the tests name `cam`.
    static let camera = prefix + "/cam"

    /// Every frame of the 8 s code clip: at --fps 10 --dedupe 300ms, each pass holds 3 code events.
    static func codeClip() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("events-codes.mjpeg"))) }

    static func codeEvents(_ messages: [ReceivedMessage]) -> [Int] {
        messages.filter { $0.topic == camera + "/events" }.compactMap { $0.json }
            .filter { $0["kind"] as? String == "code" }.compactMap { $0["frame"] as? Int }
    }

    /// Lookout reading MJPEG from standard input (timed at 10 fps), each appearance of a code an
    /// event (`--dedupe 300ms`: three per pass of the code clip), published to `broker`; the whole
    /// frame read on every frame, so each event is on the frame its code appears on.
    static func codeEventsFromStandardInput(to broker: MQTTBroker, options: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--dedupe", "300ms", "--events", "changes",
                                              "--code-scan-rate", "0"]
                                + options + ["--mqtt", "\(broker.url)/\(prefix)"], withInput: true)
    }

    @Test func eachSnapshotIsPublishedAsBinaryJPEGAndTheNewestIsRetained() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-snapshots-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("sample.mjpeg"), "--events", "changes", "-q",
                                  "--snapshots", directory, "--mqtt", "\(broker.url)/\(Self.prefix)"])
        #expect(result.status == 0, "\(result.stderr)")
        // A subscriber arriving afterwards gets the retained snapshot: the newest file's bytes.
        let payload = try Self.retainedSnapshot(on: broker)
        let newest = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).filter(SnapshotFileName.isSnapshot).max())
        let file = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + newest))
        #expect(payload.count == file.count && payload == file, "the retained snapshot is \(payload.count) bytes, \(newest) \(file.count)")
        #expect(Array(payload.prefix(2)) == [0xFF, 0xD8])
    }

    /// The snapshot is the event's, not the file's: a folder that cannot be made costs the files,
    /// and MQTT still publishes each event's picture.
    @Test func theSnapshotIsPublishedWhenTheFolderRefusesIt() throws {
        let broker = try MQTTBroker()
        try broker.start()
        // A regular file where the folder should be: no snapshot file can be written.
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-not-a-folder-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("sample.mjpeg"), "--events", "changes", "-q",
                                  "--snapshots", blocker, "--mqtt", "\(broker.url)/\(Self.prefix)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("snapshot not written"), "\(result.stderr)")
        let payload = try Self.retainedSnapshot(on: broker)
        #expect(payload.count > 1000 && Array(payload.prefix(2)) == [0xFF, 0xD8], "\(payload.count) bytes")
    }

    /// The retained `snapshot` of camera `cam`, as a subscriber arriving now gets it.
    static func retainedSnapshot(on broker: MQTTBroker) throws -> Data {
        let subscriber = Process()
        subscriber.environment = childEnvironment([:])
        subscriber.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        subscriber.arguments = ["-p", String(broker.port), "-t", camera + "/snapshot", "-C", "1", "-N", "-W", "60"]
        let out = Pipe()
        subscriber.standardOutput = out
        subscriber.standardInput = FileHandle.nullDevice
        try subscriber.run()
        let payload = out.fileHandleForReading.readDataToEndOfFile()
        subscriber.waitUntilExit()
        return payload
    }

    @Test func availabilityStateDiscoveryAndOneEventPerCode() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let live = try Subscriber(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"])
        try live.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("sample.mjpeg"), "--events", "changes", "-q",
                                  "--mqtt", "\(broker.url)/\(Self.prefix)", "--ha-discovery"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(live.wait(timeout: 60) { $0.contains { $0.topic == Self.prefix + "/available" && $0.payload == "offline" } })
        live.stop()
        let messages = live.messages
        // Availability online first, offline last; one event per code (60 frames each held both codes).
        let availability = messages.filter { $0.topic == Self.prefix + "/available" }.map(\.payload)
        #expect(availability == ["online", "offline"])
        #expect(messages.filter { $0.topic == Self.camera + "/available" }.map(\.payload) == ["online", "offline"])
        let events = messages.filter { $0.topic == Self.camera + "/events" }.compactMap(\.json)
        #expect(events.filter { $0["kind"] as? String == "code" }.compactMap { $0["value"] as? String }.sorted()
                == ["4006381333931", "Lookout sample QR: été ✓"])
        #expect(events.filter { $0["kind"] as? String == "presence" }.compactMap { $0["state"] as? String } == ["on"])
        #expect(messages.filter { $0.topic == Self.camera + "/presence" }.map(\.payload) == ["OFF", "ON"])
        // Published at QoS 1, so delivered at QoS 1 to this QoS 1 subscription (arrival alone
        // would not show a publisher that drops to QoS 0).
        let lookoutTopics = messages.filter { $0.topic.hasPrefix(Self.prefix + "/") }
        #expect(!lookoutTopics.isEmpty && lookoutTopics.allSatisfy { $0.qos == 1 },
                "QoS: \(lookoutTopics.map { "\($0.topic) \($0.qos)" })")

        // A subscriber arriving later sees the retained state, the last will, and the discovery
        // configs; events are not retained. The broker sends retained messages on subscribing,
        // before a probe published afterwards.
        let retained = try Subscriber.retained(port: broker.port, topics: [Self.prefix + "/#", "homeassistant/#"],
                                               probe: Self.prefix + "/probe")
        #expect(retained[Self.prefix + "/available"] == "offline")
        #expect(retained[Self.camera + "/available"] == "offline")
        #expect(retained[Self.camera + "/presence"] == "ON")
        #expect(retained[Self.camera + "/code"] == "4006381333931" || retained[Self.camera + "/code"] == "Lookout sample QR: été ✓")
        #expect(retained[Self.camera + "/events"] == nil)
        let node = MQTTConfiguration(broker: try MQTTBrokerAddress("\(broker.url)/\(Self.prefix)"), clientID: "x")
        let discovery = HomeAssistantDiscovery(configuration: node.forCamera("cam"))
        for topic in [discovery.presenceConfigTopic, discovery.lastCodeConfigTopic] {
            let config = try #require(retained[topic].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                                      "no config on \(topic)")
            let state = try #require(config["state_topic"] as? String)
            #expect(retained[state] != nil, "\(topic) names \(state), which holds nothing")
            let availability = (config["availability"] as? [[String: Any]] ?? []).compactMap { $0["topic"] as? String }
            #expect(availability == [Self.prefix + "/available", Self.camera + "/available"])
        }
    }

    @Test func killingLookoutMakesTheBrokerPublishOffline() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let subscriber = try Subscriber(port: broker.port, topics: [Self.prefix + "/available"])
        // Standard input kept open after a first clip: Lookout runs until killed.
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--mqtt", "\(broker.url)/\(Self.prefix)"],
                                        withInput: true)
        try run.write(try Self.codeClip())
        #expect(subscriber.wait(timeout: 60) { $0.last?.payload == "online" })
        run.signal(SIGKILL)
        run.waitForExit()
        #expect(subscriber.wait(timeout: 60) { $0.last?.payload == "offline" }, "\(subscriber.messages.map(\.payload))")
        subscriber.stop()
    }

    @Test func aBrokerRestartLosesNoEventProducedMeanwhile() throws {
        let broker = try MQTTBroker(persistent: true)
        try broker.start()
        // A persistent session: the restarted broker keeps queuing QoS 1 messages for it.
        let subscriber = try Subscriber(port: broker.port, topics: [Self.prefix + "/#"], sessionID: "lookout-test-restart")
        try subscriber.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe")
        let run = try Self.codeEventsFromStandardInput(to: broker)
        let clip = try Self.codeClip()
        try run.write(clip)
        #expect(subscriber.wait(timeout: 60) { Self.codeEvents($0).count == 3 })

        broker.stop()
        // Six more events while the broker is down.
        try run.write(clip)
        try run.write(clip)
        #expect(run.output.wait(timeout: 30) { $0.count == 9 })
        #expect(run.errors.wait(timeout: 60) { $0.contains { $0.contains("connection to") && $0.contains("lost") } })
        try broker.start()

        let expected = [0, 15, 60, 80, 95, 140, 160, 175, 220]
        #expect(subscriber.wait(timeout: 60) { Set(Self.codeEvents($0)) == Set(expected) },
                "received \(Self.codeEvents(subscriber.messages))")
        #expect(Self.codeEvents(subscriber.messages).filter { $0 >= 80 } == Array(expected.dropFirst(3)), "order")
        try run.closeInput()
        #expect(run.waitForExit() == 0)
        #expect(run.errors.lines.contains { $0.contains("reconnected") && $0.contains("delivering 6 queued events") },
                "\(run.errors.lines)")
        subscriber.stop()
    }

    /// Events wait in the outbox on disk, which `--mqtt-queue` does not bound (it bounds the `scan`
    /// trigger's queue in memory): all three arrive. The memory queue's own bound, for a library
    /// user without an outbox, is in OutboxDeliveryTests.
    @Test func theOutboxKeepsEveryEventPastTheMemoryQueuesBound() throws {
        let (broker, subscriber) = try Subscriber.onStoppedBroker(topics: [Self.prefix + "/#"], probe: Self.prefix + "/probe",
                                                                  sessionID: "lookout-test-bounded")
        // The broker is down from the start: all three events wait in the outbox.
        let run = try Self.codeEventsFromStandardInput(to: broker, options: ["--mqtt-queue", "2"])
        try run.write(try Self.codeClip())
        #expect(run.output.wait(timeout: 30) { $0.count == 3 })
        #expect(run.errors.wait(timeout: 60) { $0.contains { $0.contains("cannot connect") } }, "\(run.errors.lines)")
        try broker.start()
        #expect(subscriber.wait(timeout: 60) { Self.codeEvents($0).count == 3 },
                "received \(subscriber.client.output.lines); subscriber: \(subscriber.client.errors.lines); lookout: \(run.errors.lines)")
        try run.closeInput()
        #expect(run.waitForExit() == 0)
        // Everything Lookout published has reached the broker (it exited after its last
        // acknowledgement); a probe published now arrives after all of it: nothing more came.
        try subscriber.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe-after")
        #expect(Self.codeEvents(subscriber.messages) == [0, 15, 60])
        #expect(!run.errors.lines.contains { $0.contains("queue full") })
        subscriber.stop()
    }

    @Test func tlsWithAPasswordFromAFileAndAWrongPasswordIsReported() throws {
        let certificates = try ScratchFolder()
        let ca = certificates.path + "/ca.pem", cert = certificates.path + "/server.pem", key = certificates.path + "/server.key"
        let script = """
            set -e
            cd '\(certificates.path)'
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=LookoutTestCA 2>/dev/null
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null
            printf 'subjectAltName=DNS:localhost\\n' > san
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san 2>/dev/null
            mosquitto_passwd -b -c passwords kiosk 'pa ss"word' 2>/dev/null
            chmod 644 server.key passwords
            printf '%s\\n' 'pa ss"word' > password
            """
        let setup = try BackgroundProcess("/bin/sh", ["-c", script])
        #expect(setup.waitForExit() == 0, "\(setup.errors.lines)")
        let broker = try MQTTBroker(listener: """
            allow_anonymous false
            password_file \(certificates.path)/passwords
            cafile \(ca)
            certfile \(cert)
            keyfile \(key)
            """)
        try broker.start()
        let credentials = ["--cafile", ca, "-u", "kiosk", "-P", "pa ss\"word", "-h", "localhost"]
        let subscriber = try Subscriber(port: broker.port, topics: [Self.prefix + "/#"], extra: credentials)
        try subscriber.waitUntilSubscribed(port: broker.port, topic: Self.prefix + "/probe", extra: credentials)
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("qr-shell.mjpeg"), "--events", "changes", "-q",
                                  "--mqtt", "mqtts://kiosk@localhost:\(broker.port)/\(Self.prefix)",
                                  "--mqtt-ca", ca, "--mqtt-password-file", certificates.path + "/password"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(subscriber.wait(timeout: 60) { Self.codeEvents($0) == [0] })
        subscriber.stop()

        // A wrong password from the environment: refused, reported once, and Lookout still ends cleanly.
        let refused = try lookout(["run", "--input", "cam=" + Fixtures.path("qr-shell.mjpeg"), "--events", "changes", "-q",
                                   "--mqtt", "mqtts://kiosk@localhost:\(broker.port)/\(Self.prefix)", "--mqtt-ca", ca],
                                  environment: ["LOOKOUT_MQTT_PASSWORD": "wrong"])
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("refused the connection"), "\(refused.stderr)")
        #expect(refused.stderr.contains("not delivered (camera cam, the node): cannot connect (the broker refused the connection: not authorised)"), "\(refused.stderr)")
    }

    /// libmosquitto (and the OpenSSL it brings) is opened only when --mqtt is given: a run without
    /// MQTT keeps those pages out of its memory.
    @Test func libmosquittoIsLoadedOnlyForMQTT() throws {
        func mapsLibmosquitto(_ options: [String]) throws -> Bool {
            let process = try BackgroundProcess(lookoutBinary, ["run", "--input", "cam=-", "--fps", "10", "--events", "changes"]
                                                + options, withInput: true)
            defer { try? process.closeInput(); _ = process.waitForExit() }
            // Once a frame has been analysed, everything Lookout opens for a run is open.
            try process.write(Data(naiveFrames(Array(try Self.codeClip())).prefix(20).joined()))
            #expect(process.output.wait(timeout: 60) { !$0.isEmpty }, "no event line")
            // /proc files report size 0: read them to the end by hand.
            let file = open("/proc/\(process.pid)/maps", O_RDONLY)
            try #require(file >= 0)
            defer { close(file) }
            var bytes = [UInt8](), chunk = [UInt8](repeating: 0, count: 65536)
            while case let count = read(file, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
            let maps = String(decoding: bytes, as: UTF8.self)
            #expect(maps.contains("libturbojpeg"), "not Lookout's maps: \(process.errors.lines)")
            return maps.contains("libmosquitto.so")
        }
        #expect(try !mapsLibmosquitto([]))
        let broker = try MQTTBroker()
        try broker.start()
        #expect(try mapsLibmosquitto(["--mqtt", "\(broker.url)/\(Self.prefix)"]))
    }
}
