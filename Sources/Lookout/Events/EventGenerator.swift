/// Turns what a metadata output finds, analysis by analysis, into events: one `code` per
/// appearance of a code, `face_enter`/`face_leave` per tracked face, and `presence` on/off with
/// hysteresis, for the camera's whole view and for each zone faces are found in
/// (`MetadataObject.zone`), with the same settings.
///
/// Feed it every analysed frame, with or without objects (MetadataOutputObjectsDelegate's
/// `didFinishAnalysing`), in order. Time is the frames' presentation time, so a file analysed
/// faster than real time gives the same events as a camera; a clock that jumps backwards counts
/// as no time passing. Codes and faces keep a clock each: their queues report in order, but a
/// face analysis of an earlier frame may come after the codes of later ones (always, under load),
/// and one clock going back and forth between them would run fast.
public struct EventGenerator {
    public let settings: EventSettings
    private var codes: CodeDeduplicator
    private var faces: FaceVisitTracker
    private var presence: PresenceHysteresis
    /// Presence per zone, in the order the zones first held a face.
    private var zones: [(name: String, presence: PresenceHysteresis)] = []
    private var codeClock = EventClock()
    private var faceClock = EventClock()
    private var lastFrame: AnalysedFrame?

    public init(settings: EventSettings = EventSettings()) {
        self.settings = settings
        codes = CodeDeduplicator(window: settings.dedupeWindow)
        faces = FaceVisitTracker(leaveDelay: settings.faceLeaveDelay)
        presence = Self.hysteresis(settings)
    }

    private static func hysteresis(_ settings: EventSettings) -> PresenceHysteresis {
        PresenceHysteresis(onCount: settings.presenceOnCount, onWindow: settings.presenceOnWindow,
                           offDelay: settings.presenceOffDelay)
    }

    /// Whether presence is on now, anywhere in the view.
    public var isPresent: Bool { presence.isPresent }

    /// The zones presence is on in now, in the order they first held a face.
    public var presentZones: [String] { zones.filter(\.presence.isPresent).map(\.name) }

    /// The events one analysed frame gives, in this order: new codes, faces that left, faces that
    /// entered, a presence change of the whole view, then those of zones.
    public mutating func process(_ objects: [MetadataObject], in frame: AnalysedFrame) -> [DetectionEvent] {
        lastFrame = frame
        var events: [DetectionEvent] = []
        // Codes and faces are analysed on queues of their own: each report moves only its own state.
        if frame.analysedCodes {
            let now = codeClock.advance(to: frame.presentationTime)
            let codeObjects = objects.compactMap { $0 as? MachineReadableCodeObject }
            for code in codes.newCodes(in: codeObjects, at: now) { events.append(.code(code)) }
        }
        if frame.analysedFaces {
            let now = faceClock.advance(to: frame.presentationTime)
            let faceObjects = objects.compactMap { $0 as? FaceObject }
            let (entered, left) = faces.update(faces: faceObjects, at: now)
            for visit in left { events.append(.faceLeave(leave(visit, reason: .timeout, frame: frame))) }
            for face in entered { events.append(.faceEnter(face)) }
            if let state = presence.update(facesFound: !faceObjects.isEmpty, at: now) {
                events.append(.presence(change(to: state, faces: faceObjects.count, lastPositive: presence.lastPositive,
                                               reason: .timeout, frame: frame, zone: nil)))
            }
            updateZones(faceObjects, at: now, frame: frame, into: &events)
        }
        return events
    }

    /// Presence per zone: each zone a face was ever found in has its own hysteresis, fed on every
    /// face analysis.
    private mutating func updateZones(_ faces: [FaceObject], at now: MediaTime, frame: AnalysedFrame,
                                      into events: inout [DetectionEvent]) {
        for face in faces {
            if let zone = face.zone, !zones.contains(where: { $0.name == zone }) {
                zones.append((zone, Self.hysteresis(settings)))
            }
        }
        for index in zones.indices {
            let name = zones[index].name
            let count = faces.count(where: { $0.zone == name })
            if let state = zones[index].presence.update(facesFound: count > 0, at: now) {
                events.append(.presence(change(to: state, faces: count, lastPositive: zones[index].presence.lastPositive,
                                               reason: .timeout, frame: frame, zone: name)))
            }
        }
    }

    private func change(to state: Bool, faces: Int, lastPositive: MediaTime?, reason: EndReason,
                        frame: AnalysedFrame, zone: String?) -> PresenceChange {
        PresenceChange(isPresent: state, faceCount: faces, lastSeen: state ? nil : lastPositive.map(presentationTime(of:)),
                       reason: state ? nil : reason, frame: frame, zone: zone)
    }

    /// The camera stopped delivering frames: every face leaves and presence ends now, rather than
    /// staying on for as long as the camera is away.
    public mutating func interrupt(at wallClockTime: WallClockTime = .now()) -> [DetectionEvent] {
        guard var frame = lastFrame else { return [] }
        frame.wallClockTime = wallClockTime
        var events: [DetectionEvent] = faces.endAll().map { .faceLeave(leave($0, reason: .cameraLost, frame: frame)) }
        if presence.reset() {
            events.append(.presence(change(to: false, faces: 0, lastPositive: presence.lastPositive,
                                           reason: .cameraLost, frame: frame, zone: nil)))
        }
        for index in zones.indices where zones[index].presence.reset() {
            events.append(.presence(change(to: false, faces: 0, lastPositive: zones[index].presence.lastPositive,
                                           reason: .cameraLost, frame: frame, zone: zones[index].name)))
        }
        return events
    }

    /// Converts a time on the face clock back to the stream's presentation time.
    private func presentationTime(of time: MediaTime) -> MediaTime {
        faceClock.presentationTime(of: time)
    }

    private func leave(_ visit: FaceVisitTracker.Visit, reason: EndReason, frame: AnalysedFrame) -> FaceLeave {
        FaceLeave(faceID: visit.faceID, firstSeen: presentationTime(of: visit.firstSeen),
                  lastSeen: presentationTime(of: visit.lastSeen), lastPixelBounds: visit.lastPixelBounds,
                  lastBounds: visit.lastBounds, reason: reason, frame: frame, zone: visit.lastZone)
    }
}
