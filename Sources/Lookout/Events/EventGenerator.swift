/// Turns what a metadata output finds, analysis by analysis, into events: one `code` per
/// appearance of a code, `face_enter`/`face_leave` per tracked face, and `presence` on/off with
/// hysteresis.
///
/// Feed it every analysed frame, with or without objects (MetadataOutputObjectsDelegate's
/// `didFinishAnalysing`), in order. Time is the frames' presentation time, so a file analysed
/// faster than real time gives the same events as a camera; a clock that jumps backwards counts
/// as no time passing.
public struct EventGenerator {
    public let settings: EventSettings
    private var codes: CodeDeduplicator
    private var faces: FaceVisitTracker
    private var presence: PresenceHysteresis
    private var clock = MediaTime.zero
    private var lastPresentationTime: MediaTime?
    private var lastFrame: AnalysedFrame?

    public init(settings: EventSettings = EventSettings()) {
        self.settings = settings
        codes = CodeDeduplicator(window: settings.dedupeWindow)
        faces = FaceVisitTracker(leaveDelay: settings.faceLeaveDelay)
        presence = PresenceHysteresis(onCount: settings.presenceOnCount, onWindow: settings.presenceOnWindow,
                                      offDelay: settings.presenceOffDelay)
    }

    /// Whether presence is on now.
    public var isPresent: Bool { presence.isPresent }

    /// The events one analysed frame gives, in this order: new codes, faces that left, faces that
    /// entered, a presence change.
    public mutating func process(_ objects: [MetadataObject], in frame: AnalysedFrame) -> [DetectionEvent] {
        let now = advanceClock(to: frame.presentationTime)
        lastFrame = frame
        var events: [DetectionEvent] = []
        // Codes and faces are analysed on queues of their own: each report moves only its own state.
        if frame.analysedCodes {
            let codeObjects = objects.compactMap { $0 as? MachineReadableCodeObject }
            for code in codes.newCodes(in: codeObjects, at: now) { events.append(.code(code)) }
        }
        if frame.analysedFaces {
            let faceObjects = objects.compactMap { $0 as? FaceObject }
            let (entered, left) = faces.update(faces: faceObjects, at: now)
            for visit in left { events.append(.faceLeave(leave(visit, reason: .timeout, frame: frame))) }
            for face in entered { events.append(.faceEnter(face)) }
            if let state = presence.update(facesFound: !faceObjects.isEmpty, at: now) {
                events.append(.presence(PresenceChange(
                    isPresent: state, faceCount: faceObjects.count,
                    lastSeen: state ? nil : presence.lastPositive.map(presentationTime(of:)),
                    reason: state ? nil : .timeout, frame: frame)))
            }
        }
        return events
    }

    /// The camera stopped delivering frames: every face leaves and presence ends now, rather than
    /// staying on for as long as the camera is away.
    public mutating func interrupt(at wallClockTime: WallClockTime = .now()) -> [DetectionEvent] {
        guard var frame = lastFrame else { return [] }
        frame.wallClockTime = wallClockTime
        var events: [DetectionEvent] = faces.endAll().map { .faceLeave(leave($0, reason: .cameraLost, frame: frame)) }
        let lastPositive = presence.lastPositive
        if presence.reset() {
            events.append(.presence(PresenceChange(isPresent: false, faceCount: 0,
                                                   lastSeen: lastPositive.map(presentationTime(of:)),
                                                   reason: .cameraLost, frame: frame)))
        }
        return events
    }

    /// Moves the event clock by the frame's presentation-time step, never backwards.
    private mutating func advanceClock(to time: MediaTime) -> MediaTime {
        if let last = lastPresentationTime, time > last {
            clock.nanoseconds += time.nanoseconds - last.nanoseconds
        }
        lastPresentationTime = time
        return clock
    }

    /// Converts a time on the event clock back to the stream's presentation time.
    private func presentationTime(of time: MediaTime) -> MediaTime {
        guard let last = lastPresentationTime else { return time }
        return MediaTime(nanoseconds: last.nanoseconds - (clock.nanoseconds - time.nanoseconds))
    }

    private func leave(_ visit: FaceVisitTracker.Visit, reason: EndReason, frame: AnalysedFrame) -> FaceLeave {
        FaceLeave(faceID: visit.faceID, firstSeen: presentationTime(of: visit.firstSeen),
                  lastSeen: presentationTime(of: visit.lastSeen), lastPixelBounds: visit.lastPixelBounds,
                  lastBounds: visit.lastBounds, reason: reason, frame: frame)
    }
}
