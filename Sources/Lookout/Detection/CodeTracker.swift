/// The codes read in the last frame looked at, followed to the next: where each will be is its
/// box moved by its last motion, and the next frame is searched there (a window around it) instead
/// of everywhere. A code its window no longer holds is forgotten: the whole-frame scans, at a
/// lower rate, find it again.
struct CodeTracker {
    struct Track: Equatable {
        var type: MetadataObjectType
        var payload: [UInt8]
        /// Where it was read, in frame pixels.
        var box: Rect
        /// Frame pixels per second of stream time, from its last two reads (0 after one).
        var velocity: Point
        var time: MediaTime
    }

    /// Frame pixels around a code's box at least, and the share of its larger side when more:
    /// room for a hand's jitter and for ZBar's scan lines to settle before they reach the code
    /// (16 pixels of a halved 720p frame gave the whole-frame reads on every frame of the bench clip).
    static let minimumMargin = 32.0
    static let relativeMargin = 0.1

    private(set) var tracks: [Track] = []
    /// The last look's tracks while the next are made (kept, so updates allocate nothing new).
    private var previous: [Track] = []

    /// Replaces the tracks with the codes ZBar read at `time` (corners in frame pixels; codes
    /// zxing-cpp read are left out: its kinds are read on every frame); a code read in the last
    /// look too keeps moving as it moved between the two.
    mutating func update(with codes: [ScannedCode], at time: MediaTime) {
        swap(&tracks, &previous)
        tracks.removeAll(keepingCapacity: true)
        for code in codes where code.decoder == .zbar {
            let box = Rect.enclosing(code.corners)
            var velocity = Point(x: 0, y: 0)
            var earlier: Track?
            for track in previous where track.type == code.type && track.payload == code.payload {
                if earlier.map({ track.box.squaredCentreDistance(to: box) < $0.box.squaredCentreDistance(to: box) }) ?? true {
                    earlier = track
                }
            }
            if let earlier, time > earlier.time {
                let seconds = (time - earlier.time).seconds
                velocity = Point(x: (box.midX - earlier.box.midX) / seconds, y: (box.midY - earlier.box.midY) / seconds)
            }
            tracks.append(Track(type: code.type, payload: code.payload, box: box, velocity: velocity, time: time))
        }
    }

    mutating func removeAll() {
        tracks.removeAll()
    }

    /// Where to look for each code at `time`, in frame pixels: its box and its box moved by its
    /// motion since, together, grown by the margin (reaching past the frame when the code is near
    /// its edge).
    func windows(at time: MediaTime) -> [Rect] {
        tracks.map { track in
            let seconds = time > track.time ? (time - track.time).seconds : 0
            let dx = track.velocity.x * seconds, dy = track.velocity.y * seconds
            let box = track.box
            let margin = max(Self.minimumMargin, Self.relativeMargin * max(box.width, box.height))
            let left = min(box.x, box.x + dx) - margin, top = min(box.y, box.y + dy) - margin
            let right = max(box.maxX, box.maxX + dx) + margin, bottom = max(box.maxY, box.maxY + dy) + margin
            return Rect(x: left, y: top, width: right - left, height: bottom - top)
        }
    }
}

extension Rect {
    /// Squared distance between the centres of two rectangles.
    func squaredCentreDistance(to other: Rect) -> Double {
        let dx = midX - other.midX, dy = midY - other.midY
        return dx * dx + dy * dy
    }
}
