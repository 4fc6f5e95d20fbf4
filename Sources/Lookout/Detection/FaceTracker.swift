import Synchronization

/// Gives faces their IDs across analysed frames, the way AVMetadataFaceObject.faceID behaves: a face
/// keeps its ID while it stays in view, and a face that enters gets a new ID that is never reused in
/// the process's life.
///
/// A detection is the same face as a track when its centre lies near where the track's face is
/// predicted to be (moving on as it moved between its last two sightings) or near where it was last
/// found, within a gate that widens with the time since: under load analyses come far apart, and
/// a face that moved half its width between them is still the same face. A face missed keeps its ID
/// until `leaveRule` says it has left; found again where its track was before that, it is re-attached.
/// Used on one queue only; an analysis allocates nothing beyond the IDs it returns.
final class FaceTracker {
    /// IDs are unique process-wide, even across sessions and outputs.
    private static let nextID = Atomic<Int>(1)

    private struct Track {
        var id: Int
        var box: Rect
        var lastSeen: MediaTime
        /// Centre motion between the last two sightings, in pixels per nanosecond (zero after one).
        var velocity = (x: 0.0, y: 0.0)
        /// Analyses in a row that missed this face.
        var missed = 0
        /// Analyses that found this face.
        var hits = 1

        init(id: Int, box: Rect, lastSeen: MediaTime) {
            self.id = id
            self.box = box
            self.lastSeen = lastSeen
        }

        /// Where the face should be at `time`: on along its motion for at most `maximumPrediction`.
        func predicted(at time: MediaTime) -> (x: Double, y: Double) {
            let elapsed = Double(min(max(0, time.nanoseconds - lastSeen.nanoseconds), FaceTracker.maximumPrediction.nanoseconds))
            return (box.midX + velocity.x * elapsed, box.midY + velocity.y * elapsed)
        }
    }

    private struct Candidate {
        var distance: Double
        var box: Int
        var track: Int
    }

    /// Predictions go this far ahead at most (a face does not walk on in a straight line for ever)...
    static let maximumPrediction = MediaTime(seconds: 2)
    /// ...and the gate widens for this long at most.
    static let maximumGateGrowth = 1.5
    /// Windows around expected faces grow with the time unseen for this long at most.
    static let maximumWindowGrowth = 0.25
    /// The gate, in face widths between a detection's centre and the track's: this much at once...
    static let gateBase = 0.6
    /// ...and this much more per second since the face was last found (for at most
    /// `maximumGateGrowth` seconds): the longer unseen, the farther it may have gone.
    static let gatePerSecond = 1.2
    /// A detection more than this many times larger or smaller than the track's face is another face.
    static let maximumSizeRatio = 1.8

    let leaveRule: FaceLeaveRule
    /// Analyses a face must be found in before it is reported (`isConfirmed`).
    let confirmations: Int

    private var tracks: [Track] = []
    // Scratch space of one analysis, kept between analyses so that matching allocates nothing.
    private var candidates: [Candidate] = []
    private var trackTaken: [Bool] = []
    private var ids: [Int] = []

    init(leaveRule: FaceLeaveRule = FaceLeaveRule(delay: .zero), confirmations: Int = 1) {
        self.leaveRule = leaveRule
        self.confirmations = max(1, confirmations)
    }

    convenience init(retention: MediaTime, confirmations: Int = 1) {
        self.init(leaveRule: FaceLeaveRule(delay: retention), confirmations: confirmations)
    }

    /// IDs for the faces, and whether each has been found in `confirmations` analyses (a face
    /// found once, on one frame, is more often a texture than a person; a person stays).
    /// A previous analysis's faces restamped onto an unchanged frame count too: the detector
    /// would find them again there, and a still scene must not keep a person unconfirmed.
    func track(_ boxes: [Rect], at time: MediaTime) -> [(id: Int, isConfirmed: Bool)] {
        update(boxes, at: time)
        return ids.indices.map { b in (ids[b], tracks.first { $0.id == ids[b] }.map { $0.hits >= confirmations } ?? false) }
    }

    /// Where each face being followed may be at `time`, in frame pixels: around its last place
    /// and its predicted one, as far as the matching gate reaches; and its width now. What a
    /// window search looks in: a face found there is matched to its track.
    func expectedFaces(at time: MediaTime) -> [(area: Rect, width: Double)] {
        tracks.map { track in
            let predicted = track.predicted(at: time)
            // Not as far as the gate grows for a face missed a while: a window that size costs
            // as much as a whole search, which finds such a face within its interval anyway.
            let elapsed = min(Double(max(0, time.nanoseconds - track.lastSeen.nanoseconds)) / 1e9, Self.maximumWindowGrowth)
            let reach = track.box.width * (Self.gateBase + Self.gatePerSecond * elapsed)
            // The face's box around either centre, and as far again as its centre may stray.
            let half = (track.box.width / 2 + reach, track.box.height / 2 + reach)
            let left = min(track.box.midX, predicted.x) - half.0, right = max(track.box.midX, predicted.x) + half.0
            let top = min(track.box.midY, predicted.y) - half.1, bottom = max(track.box.midY, predicted.y) + half.1
            return (Rect(x: left, y: top, width: right - left, height: bottom - top), track.box.width)
        }
    }

    var isFollowingFaces: Bool { !tracks.isEmpty }

    /// Assigns IDs to the faces (pixel rectangles) of the analysis at `time`, and remembers them.
    func assignIDs(to boxes: [Rect], at time: MediaTime) -> [Int] {
        update(boxes, at: time)
        return ids
    }

    private func update(_ boxes: [Rect], at time: MediaTime) {
        endTracks(at: time)
        ids.removeAll(keepingCapacity: true)
        ids.append(contentsOf: repeatElement(0, count: boxes.count))
        candidates.removeAll(keepingCapacity: true)
        for (b, box) in boxes.enumerated() {
            for (t, track) in tracks.enumerated() {
                if let distance = Self.distance(from: box, to: track, at: time) {
                    candidates.append(Candidate(distance: distance, box: b, track: t))
                }
            }
        }
        // Greedy matching, nearest first: enough for the few faces a frame holds.
        candidates.sort { $0.distance < $1.distance }
        trackTaken.removeAll(keepingCapacity: true)
        trackTaken.append(contentsOf: repeatElement(false, count: tracks.count))
        for candidate in candidates where ids[candidate.box] == 0 && !trackTaken[candidate.track] {
            trackTaken[candidate.track] = true
            ids[candidate.box] = tracks[candidate.track].id
            see(&tracks[candidate.track], at: boxes[candidate.box], time: time)
        }
        for t in trackTaken.indices where !trackTaken[t] { tracks[t].missed += 1 }
        for b in boxes.indices where ids[b] == 0 {
            ids[b] = Self.nextID.add(1, ordering: .relaxed).oldValue
            tracks.append(Track(id: ids[b], box: boxes[b], lastSeen: time))
        }
    }

    /// Ends the tracks of faces that have left. A face not yet confirmed goes as soon as it is
    /// missed for longer than the delay (a flicker must be found again soon to count); a confirmed
    /// one when the leave rule says so. A clock that went backwards (a restarted stream) ends
    /// every track.
    private func endTracks(at time: MediaTime) {
        tracks.removeAll { track in
            let absence = time.nanoseconds - track.lastSeen.nanoseconds
            if absence < 0 { return true }
            guard track.missed > 0 else { return false }
            return track.hits < confirmations ? absence > leaveRule.delay.nanoseconds
                                              : leaveRule.hasLeft(absentFor: absence, missed: track.missed)
        }
    }

    private func see(_ track: inout Track, at box: Rect, time: MediaTime) {
        let elapsed = Double(time.nanoseconds - track.lastSeen.nanoseconds)
        if elapsed > 0 {
            track.velocity = ((box.midX - track.box.midX) / elapsed, (box.midY - track.box.midY) / elapsed)
        }
        track.box = box
        track.lastSeen = time
        track.hits += 1
        track.missed = 0
    }

    /// How far `box` lies from the track's face, in face widths (from its predicted place or its
    /// last one, whichever is nearer); nil when outside the gate or of another size.
    private static func distance(from box: Rect, to track: Track, at time: MediaTime) -> Double? {
        let width = max(box.width, track.box.width, 1)
        guard width <= maximumSizeRatio * max(min(box.width, track.box.width), 1) else { return nil }
        let predicted = track.predicted(at: time)
        let fromPrediction = (box.midX - predicted.x) * (box.midX - predicted.x) + (box.midY - predicted.y) * (box.midY - predicted.y)
        let fromLast = (box.midX - track.box.midX) * (box.midX - track.box.midX) + (box.midY - track.box.midY) * (box.midY - track.box.midY)
        let distance = min(fromPrediction, fromLast).squareRoot() / width
        let elapsed = min(Double(max(0, time.nanoseconds - track.lastSeen.nanoseconds)) / 1e9, maximumGateGrowth)
        return distance <= gateBase + gatePerSecond * elapsed ? distance : nil
    }
}
