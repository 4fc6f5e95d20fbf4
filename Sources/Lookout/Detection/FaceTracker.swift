import Synchronization

/// Gives faces their IDs across analysed frames, the way AVMetadataFaceObject.faceID behaves: a face
/// keeps its ID while it stays in view (matched to the previous analysis by overlap), and a face
/// that enters gets a new ID that is never reused in the process's life.
final class FaceTracker {
    /// IDs are unique process-wide, even across sessions and outputs.
    private static let nextID = Atomic<Int>(1)

    private var tracked: [(id: Int, box: Rect)] = []
    /// Overlap a detection needs with a face of the previous analysis to be the same face.
    let minimumOverlap: Double

    init(minimumOverlap: Double = 0.3) {
        self.minimumOverlap = minimumOverlap
    }

    /// Assigns IDs to this analysis's faces (pixel rectangles) and remembers them for the next.
    func assignIDs(to boxes: [Rect]) -> [Int] {
        var ids = Array(repeating: 0, count: boxes.count)
        var candidates: [(overlap: Double, box: Int, track: Int)] = []
        for (b, box) in boxes.enumerated() {
            for (t, track) in tracked.enumerated() {
                let overlap = box.intersectionOverUnion(track.box)
                if overlap >= minimumOverlap { candidates.append((overlap, b, t)) }
            }
        }
        // Greedy matching, best overlaps first: enough for the few faces a frame holds.
        candidates.sort { $0.overlap > $1.overlap }
        var boxTaken = Set<Int>(), trackTaken = Set<Int>()
        for candidate in candidates where !boxTaken.contains(candidate.box) && !trackTaken.contains(candidate.track) {
            ids[candidate.box] = tracked[candidate.track].id
            boxTaken.insert(candidate.box)
            trackTaken.insert(candidate.track)
        }
        for b in boxes.indices where ids[b] == 0 {
            ids[b] = Self.nextID.add(1, ordering: .relaxed).oldValue
        }
        tracked = zip(ids, boxes).map { ($0, $1) }
        return ids
    }
}
