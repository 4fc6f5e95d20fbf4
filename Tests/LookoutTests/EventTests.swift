import Foundation
import Testing
@testable import Lookout

@Suite("Event rules")
struct EventRuleTests {
    static func at(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    @Test func presenceNeedsTwoHitsWithinTheWindowAndIgnoresAOneFrameGap() {
        var presence = PresenceHysteresis(onCount: 2, onWindow: Self.at(1), offDelay: Self.at(5))
        #expect(presence.update(facesFound: true, at: Self.at(0)) == nil)
        // The second hit comes too late for the window: still off.
        #expect(presence.update(facesFound: true, at: Self.at(1.5)) == nil)
        #expect(presence.update(facesFound: true, at: Self.at(1.6)) == true)
        // A missed frame, even a few seconds of them, changes nothing.
        #expect(presence.update(facesFound: false, at: Self.at(1.7)) == nil)
        #expect(presence.update(facesFound: false, at: Self.at(6.5)) == nil)
        #expect(presence.update(facesFound: true, at: Self.at(6.6)) == nil)
        #expect(presence.update(facesFound: false, at: Self.at(11.5)) == nil)
        #expect(presence.update(facesFound: false, at: Self.at(11.6)) == false)
        #expect(presence.update(facesFound: false, at: Self.at(20)) == nil)
    }

    @Test func theQueueKeepsTheNewestAndCountsWhatItDropped() {
        var queue = BoundedQueue<Int>(capacity: 3)
        for value in 1...5 { queue.append(value) }
        #expect(queue.dropped == 2)
        queue.prepend(0) // full: the re-queued oldest is the one to go
        #expect(queue.dropped == 3)
        #expect([queue.popFirst(), queue.popFirst()] == [3, 4])
        queue.prepend(4)
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst()] == [4, 5, nil])
    }

    @Test func brokerAddressesParseAndBadOnesSayWhy() throws {
        let plain = try MQTTBrokerAddress("mqtt://127.0.0.1/home/hall")
        #expect(plain.host == "127.0.0.1" && plain.port == 1883 && !plain.usesTLS && plain.topicPrefix == "home/hall")
        let secure = try MQTTBrokerAddress("mqtts://ann:p%40ss@[::1]:8884/")
        #expect(secure.usesTLS && secure.host == "::1" && secure.port == 8884)
        #expect(secure.username == "ann" && secure.password == "p@ss" && secure.topicPrefix == "lookout")
        #expect(secure.redacted == "mqtts://ann:***@[::1]:8884/lookout")
        for bad in ["http://host/x", "mqtt://", "mqtt://host:0/x", "mqtt://host:99999/x", "mqtt://host/a/#", "mqtt://host/a//b"] {
            #expect(throws: MQTTError.self, "\(bad)") { try MQTTBrokerAddress(bad) }
        }
    }

    @Test func homeAssistantConfigsNameLookoutsTopics() throws {
        let node = MQTTConfiguration(broker: try MQTTBrokerAddress("mqtt://broker/home/hall cam"), clientID: "node")
        let camera = node.forCamera("door")
        #expect(camera.clientID == "node-door")
        let topics = camera.topics
        #expect(topics.presence == "home/hall cam/door/presence")
        let discovery = HomeAssistantDiscovery(configuration: camera)
        #expect(discovery.nodeID == "home_hall_cam_door")
        #expect(discovery.presenceConfigTopic == "homeassistant/binary_sensor/home_hall_cam_door/presence/config")
        let presence = try #require(try JSONSerialization.jsonObject(with: Data(discovery.presenceConfig)) as? [String: Any])
        #expect(presence["state_topic"] as? String == topics.presence)
        // Available while both the node and the camera are.
        let availability = try #require(presence["availability"] as? [[String: Any]])
        #expect(availability.compactMap { $0["topic"] as? String } == ["home/hall cam/available", topics.availability])
        #expect(presence["availability_mode"] as? String == "all")
        #expect(presence["device_class"] as? String == "occupancy")
        let code = try #require(try JSONSerialization.jsonObject(with: Data(discovery.lastCodeConfig)) as? [String: Any])
        #expect(code["state_topic"] as? String == topics.lastCode)
    }
}

/// Events from real detectors on scripted clips (scripts/make-fixtures): 10 fps MJPEG, so frame n
/// is at n/10 s.
@Suite("Events, end to end", .serialized)
struct EventCommandLineTests {
    static func events(_ result: ProcessResult) throws -> [[String: Any]] {
        try jsonObjects(result)
    }

    @Test func presenceTurnsOnOnceAndOffOnceOnAPacedClip() throws {
        // The face is in view from 2 s to 6 s and missing on the one frame at 4.0 s.
        let launched = Date()
        let result = try lookout(["run", "--input", Fixtures.path("events-presence.mjpeg"), "--fps", "10", "--realtime",
                                  "--events", "changes", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.events(result)
        let presence = lines.filter { $0["kind"] as? String == "presence" }
        #expect(presence.map { $0["state"] as? String } == ["on", "off"])
        guard presence.count == 2 else { return }
        let on = try #require(presence[0]["pts"] as? Double), off = try #require(presence[1]["pts"] as? Double)
        #expect(abs(on - 2) <= 0.5, "on at \(on) s")
        #expect(abs(off - 11) <= 0.5, "off at \(off) s (left at 6 s, --presence-off 5s)")
        // Paced like a camera: no event comes before its stream time has passed since the start
        // (a loaded machine may only make it later).
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let onTime = try #require(format.date(from: presence[0]["time"] as? String ?? ""))
        let offTime = try #require(format.date(from: presence[1]["time"] as? String ?? ""))
        #expect(onTime.timeIntervalSince(launched) >= on - 0.1, "on at \(onTime), started at \(launched)")
        #expect(offTime.timeIntervalSince(launched) >= off - 0.1, "off at \(offTime), started at \(launched)")
        // The one-frame gap kept the face's ID: one enter, one leave.
        #expect(lines.filter { $0["kind"] as? String == "face_enter" }.count == 1)
        #expect(lines.filter { $0["kind"] as? String == "face_leave" }.count == 1)
        #expect(presence[1]["reason"] as? String == "timeout")
    }

    @Test func aCodeInViewIsReadOnceAndAgainOnlyAfterTheWindow() throws {
        // In view 0-1 s and 1.5-3 s (one appearance for a 2 s window), then 6-7 s.
        let result = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--events", "changes", "-q"])
        #expect(result.status == 0)
        let codes = try Self.events(result).filter { $0["kind"] as? String == "code" }
        #expect(codes.compactMap { $0["pts"] as? Double } == [0, 6])
        #expect(Set(codes.compactMap { $0["value"] as? String }) == ["été"])
        #expect(codes.allSatisfy { $0["type"] as? String == "qr" })
        // A shorter window makes the 0.5 s gap a new appearance.
        let short = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--events", "changes",
                                 "--dedupe", "300ms", "--code-scan-rate", "0", "-q"])
        #expect(try Self.events(short).filter { $0["kind"] as? String == "code" }.compactMap { $0["pts"] as? Double } == [0, 1.5, 6])
        // With windows between whole-frame scans (the default), each is read within 100 ms.
        let windowed = try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10", "--events", "changes",
                                    "--dedupe", "300ms", "-q"])
        let times = try Self.events(windowed).filter { $0["kind"] as? String == "code" }.compactMap { $0["pts"] as? Double }
        #expect(times.count == 3 && zip(times, [0, 1.5, 6]).allSatisfy { $0 >= $1 && $0 <= $1 + 0.1 + 1e-9 }, "\(times)")
        #expect(try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--dedupe", "soon"]).status == 64)
    }

    @Test func facesEnteringAtDifferentTimesOrComingBackGetNewIDs() throws {
        // A from 1 s to 3.5 s and again from 5 s; B from 2.5 s.
        let result = try lookout(["run", "--input", Fixtures.path("events-faces.mjpeg"), "--fps", "10", "--events", "changes", "-q"])
        #expect(result.status == 0)
        let lines = try Self.events(result)
        let enters = lines.filter { $0["kind"] as? String == "face_enter" }
        // Each confirmed by its second analysis, one frame (0.1 s) after it came into view.
        #expect(enters.compactMap { $0["pts"] as? Double } == [1.1, 2.6, 5.1])
        let ids = enters.compactMap { $0["face_id"] as? Int }
        #expect(Set(ids).count == 3, "IDs \(ids)")
        // A's leave names A's first ID, after the 1 s retention.
        let leaves = lines.filter { $0["kind"] as? String == "face_leave" }
        #expect(leaves.compactMap { $0["face_id"] as? Int } == ids.prefix(1).map { $0 })
        let leave = try #require(leaves.first, "no face_leave")
        #expect(abs((leave["last_seen_pts"] as? Double ?? 0) - 3.4) < 0.15)
        // One presence period throughout.
        #expect(lines.filter { $0["kind"] as? String == "presence" }.compactMap { $0["state"] as? String } == ["on"])
    }

    @Test func everyEventLineMatchesTheSchema() throws {
        let result = try lookout(["run", "--input", Fixtures.path("events-presence.mjpeg"), "--fps", "10", "--events", "changes", "-q"])
        let lines = result.lines
        #expect(Set(try jsonObjects(result).compactMap { $0["kind"] as? String }) == ["face_enter", "face_leave", "presence"])
        try validateAgainstSchema(lines + (try lookout(["run", "--input", Fixtures.path("events-codes.mjpeg"), "--events", "changes", "-q"])).lines)
    }
}

/// Runs scripts/validate-lines (JSON Schema) over `lines` with Debian's python3 and python3-jsonschema,
/// as scripts/setup installs them: its exit status and what it said.
func schemaCheck(_ lines: [String]) throws -> (status: Int32, message: String) {
    let process = Process()
    process.environment = childEnvironment([:])
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [Fixtures.packageRoot + "/scripts/validate-lines"]
    let input = Pipe(), errors = Pipe()
    process.standardInput = input
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    _ = brokenPipesIgnored
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
    try input.fileHandleForWriting.close()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, message)
}

/// Expects every one of `lines` to match the schema.
func validateAgainstSchema(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let check = try schemaCheck(lines)
    #expect(check.status == 0, "schema: \(check.message)", sourceLocation: sourceLocation)
    #expect(check.message.hasPrefix("\(lines.count) lines valid"), "\(check.message)", sourceLocation: sourceLocation)
}
