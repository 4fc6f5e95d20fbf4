import Foundation
import Testing
@testable import Lookout

/// Feeds every analysis of a metadata output to an event generator, as a pipeline does.
final class EventRecorder: MetadataOutputObjectsDelegate, @unchecked Sendable {
    private var generator: EventGenerator // delegate queue only
    private var pending: [MetadataObject] = []
    let events = Locked<[DetectionEvent]>([])
    let queue = DispatchQueue(label: "test.event-recorder")

    init(settings: EventSettings) {
        generator = EventGenerator(settings: settings)
    }

    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
        pending = metadataObjects
    }

    func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame, from connection: CaptureConnection) {
        let found = generator.process(pending, in: frame)
        pending = []
        events.withLock { $0 += found }
    }

    /// The camera went: what the generator says then.
    func interrupt() {
        queue.sync { events.withLock { $0 += generator.interrupt() } }
    }

    var presentZones: [String] { queue.sync { generator.presentZones } }
}

/// Presence per zone, from the real face detector on the two-face clip: face A on the left from
/// 1 s to 3.5 s and again from 5 s, face B on the right from 2.5 s on (10 fps).
@Suite("Zone presence")
struct ZonePresenceTests {
    static func presence(_ events: [DetectionEvent]) -> [String] {
        events.compactMap { event in
            guard case .presence(let change) = event else { return nil }
            return "\(change.zone ?? "camera") \(change.isPresent ? "on" : "off")"
        }
    }

    @Test func eachZoneHasItsOwnPresenceBesidesTheCamerasAndEveryLineNamesItsZone() throws {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path("events-faces.mjpeg"), frameRate: 10))
        let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel))
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.face])
        output.regions = try DetectionRegions(zones: [
            Zone(name: "left", polygon: RegionPolygon(parsing: "0,0 0.5,0 0.5,1 0,1")),
            Zone(name: "right", polygon: RegionPolygon(parsing: "0.5,0 1,0 1,1 0.5,1")),
            Zone(name: "unused", polygon: RegionPolygon(parsing: "0,0.9 1,0.9 1,1")),
        ])
        var settings = EventSettings()
        settings.presenceOffDelay = MediaTime(seconds: 1)
        let recorder = EventRecorder(settings: settings)
        output.setMetadataObjectsDelegate(recorder, queue: recorder.queue)
        run(session)
        #expect(recorder.presentZones == ["left", "right"])
        recorder.interrupt()
        let events = recorder.events.withLock { $0 }

        // The camera stays on while either face is there; the left zone goes off in face A's
        // absence (longer than the 1 s off delay) and on again; the camera going ends them all.
        #expect(Self.presence(events) == ["camera on", "left on", "right on", "left off", "left on",
                                          "camera off", "left off", "right off"])
        let zonePresence = events.compactMap { event -> PresenceChange? in
            if case .presence(let change) = event, change.zone != nil { return change }
            return nil
        }
        #expect(zonePresence.filter(\.isPresent).map(\.faceCount) == [1, 1, 1])
        #expect(zonePresence.filter { !$0.isPresent }.map(\.reason) == [.timeout, .cameraLost, .cameraLost])
        let entered = events.compactMap { event -> FaceObject? in
            if case .faceEnter(let face) = event { return face }
            return nil
        }
        #expect(entered.map(\.zone) == ["left", "right", "left"])
        let left = events.compactMap { event -> FaceLeave? in
            if case .faceLeave(let leave) = event { return leave }
            return nil
        }
        #expect(left.map(\.zone) == ["left", "right", "left"])

        // Lines: `zone` on the zones' events, none on the camera's presence; all match the schema.
        var encoder = EventLineEncoder(source: "events-faces.mjpeg", camera: "hall")
        let lines = events.map { String(decoding: encoder.encode($0).dropLast(), as: UTF8.self) }
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.filter { $0["kind"] as? String == "presence" }.map { $0["zone"] as? String ?? "camera" }
                == ["camera", "left", "right", "left", "left", "camera", "left", "right"])
        #expect(objects.filter { ($0["kind"] as? String)?.hasPrefix("face_") == true }.allSatisfy { $0["zone"] is String })
        try validateAgainstSchema(lines)
        let text = events.map { String(decoding: TextLineEncoder().encode($0), as: UTF8.self) }
        #expect(text.filter { $0.contains("Presence") } == ["Presence:on\n", "Zone-Presence:left:on\n", "Zone-Presence:right:on\n",
                                                            "Zone-Presence:left:off\n", "Zone-Presence:left:on\n",
                                                            "Presence:off\n", "Zone-Presence:left:off\n", "Zone-Presence:right:off\n"])
    }

    @Test func thePresenceHookRunsForEachZoneWithLookoutZoneSet() throws {
        let scratch = try ScratchFolder()
        let script = try scratch.script("presence", "printf '%s %s|' \"${LOOKOUT_ZONE-camera}\" \"$LOOKOUT_STATE\" >> \"$0.log\"\n")
        let hook = try HookRunner(name: "presence", command: [script], maxConcurrent: 1) { _ in }
        let sink = HookEventSink(codeHook: nil, presenceHook: hook, source: "hall.mjpeg", camera: "hall") { _ in }
        let frame = AnalysedFrame(sequence: 7, presentationTime: MediaTime(seconds: 0.7), wallClockTime: .now(), width: 640, height: 360)
        var encoder = EventLineEncoder(source: "hall.mjpeg", camera: "hall")
        for zone in [nil, "door"] {
            let event = DetectionEvent.presence(PresenceChange(isPresent: true, faceCount: 1, lastSeen: nil, reason: nil,
                                                               frame: frame, zone: zone))
            #expect(HookEnvironment.variables(for: event, source: "hall.mjpeg").contains { $0 == ("LOOKOUT_ZONE", "door") } == (zone != nil))
            sink.consume(PipelineOutput(events: [EmittedEvent(event: event, line: encoder.encode(event))], frame: frame))
            #expect(hook.waitUntilIdle(timeout: 60))
        }
        #expect(scratch.read("presence.log").map { String(decoding: $0, as: UTF8.self) } == "camera on|door on|")
    }
}
