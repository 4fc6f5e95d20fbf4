import Synchronization

/// Gives faces their IDs across analysed frames, the way AVMetadataFaceObject.faceID behaves: a face
/// keeps its ID while it stays in view (matched by overlap to where it was last seen), and a face
/// that enters gets a new ID that is never reused in the process's life.
///
/// A face missed for up to `retention` keeps its ID when it is found again; after that it has left,
/// and finding it again makes it a new face.
final class FaceTracker {
    /// IDs are unique process-wide, even across sessions and outputs.
    private static let nextID = Atomic<Int>(1)

    private struct Track {
        var id: Int
        var box: Rect
        var lastSeen: MediaTime
        var lastAnalysis: Int
        /// Analyses that found this face.
        var hits = 1
    }

    private var analysis = 0

    private var tracks: [Track] = []
    /// Overlap a detection needs with a tracked face to be the same face.
    let minimumOverlap: Double
    let retention: MediaTime

    /// Analyses a face must be found in before it is reported (`isConfirmed`).
    let confirmations: Int

    init(minimumOverlap: Double = 0.3, retention: MediaTime = .zero, confirmations: Int = 1) {
        self.minimumOverlap = minimumOverlap
        self.retention = retention
        self.confirmations = max(1, confirmations)
    }

    /// IDs for the faces, and whether each has been found in `confirmations` analyses (a face
    /// found once, on one frame, is more often a texture than a person; a person stays).
    /// A previous analysis's faces restamped onto an unchanged frame count too: the detector
    /// would find them again there, and a still scene must not keep a person unconfirmed.
    func track(_ boxes: [Rect], at time: MediaTime) -> [(id: Int, isConfirmed: Bool)] {
        let ids = assignIDs(to: boxes, at: time)
        return ids.map { id in (id, (tracks.first { $0.id == id }?.hits ?? 1) >= confirmations) }
    }

    /// Assigns IDs to the faces (pixel rectangles) of the analysis at `time`, and remembers them.
    func assignIDs(to boxes: [Rect], at time: MediaTime) -> [Int] {
        // Faces missed for longer than the retention have left; a face found in the previous
        // analysis always gets a chance to match. A clock that went backwards (a restarted stream)
        // ends every track.
        analysis += 1
        tracks.removeAll {
            time < $0.lastSeen
                || ($0.lastAnalysis < analysis - 1 && time.nanoseconds - $0.lastSeen.nanoseconds > retention.nanoseconds)
        }
        var ids = Array(repeating: 0, count: boxes.count)
        var candidates: [(overlap: Double, box: Int, track: Int)] = []
        for (b, box) in boxes.enumerated() {
            for (t, track) in tracks.enumerated() {
                let overlap = box.intersectionOverUnion(track.box)
                if overlap >= minimumOverlap { candidates.append((overlap, b, t)) }
            }
        }
        // Greedy matching, best overlaps first: enough for the few faces a frame holds.
        candidates.sort { $0.overlap > $1.overlap }
        var boxTaken = Set<Int>(), trackTaken = Set<Int>()
        for candidate in candidates where !boxTaken.contains(candidate.box) && !trackTaken.contains(candidate.track) {
            ids[candidate.box] = tracks[candidate.track].id
            tracks[candidate.track].box = boxes[candidate.box]
            tracks[candidate.track].lastSeen = time
            tracks[candidate.track].hits += 1
            tracks[candidate.track].lastAnalysis = analysis
            boxTaken.insert(candidate.box)
            trackTaken.insert(candidate.track)
        }
        for b in boxes.indices where ids[b] == 0 {
            ids[b] = Self.nextID.add(1, ordering: .relaxed).oldValue
            tracks.append(Track(id: ids[b], box: boxes[b], lastSeen: time, lastAnalysis: analysis))
        }
        return ids
    }
}
