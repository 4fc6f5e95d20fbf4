/// Turns face IDs seen per analysis into enter and leave events. An ID seen for the first time has
/// entered; an ID `leaveRule` says has left (missed long enough, in enough analyses) has left. IDs
/// come from the face tracker, which ends a face's ID by the same rule over the same analyses and
/// gives a returning face a new ID, so every visit is one enter and one leave.
struct FaceVisitTracker {
    struct Visit {
        var faceID: Int
        var firstSeen: MediaTime
        var lastSeen: MediaTime
        var lastPixelBounds: Rect
        var lastBounds: Rect
        var lastZone: String?
        /// Analyses in a row that missed this face.
        var missed = 0
    }

    let leaveRule: FaceLeaveRule
    private(set) var visits: [Visit] = []

    init(leaveRule: FaceLeaveRule) {
        self.leaveRule = leaveRule
    }

    init(leaveDelay: MediaTime) {
        self.init(leaveRule: FaceLeaveRule(delay: leaveDelay))
    }

    /// Feeds one analysis's faces; returns the faces that entered and the visits that ended.
    mutating func update(faces: [FaceObject], at time: MediaTime) -> (entered: [FaceObject], left: [Visit]) {
        var entered: [FaceObject] = []
        for index in visits.indices { visits[index].missed += 1 }
        for face in faces {
            if let index = visits.firstIndex(where: { $0.faceID == face.faceID }) {
                visits[index].missed = 0
                visits[index].lastSeen = time
                visits[index].lastPixelBounds = face.pixelBounds
                visits[index].lastBounds = face.bounds
                visits[index].lastZone = face.zone
            } else {
                visits.append(Visit(faceID: face.faceID, firstSeen: time, lastSeen: time,
                                    lastPixelBounds: face.pixelBounds, lastBounds: face.bounds, lastZone: face.zone))
                entered.append(face)
            }
        }
        var left: [Visit] = []
        visits.removeAll { visit in
            let gone = leaveRule.hasLeft(absentFor: time.nanoseconds - visit.lastSeen.nanoseconds, missed: visit.missed)
            if gone { left.append(visit) }
            return gone
        }
        return (entered, left)
    }

    /// Ends every visit at once (the camera was lost).
    mutating func endAll() -> [Visit] {
        defer { visits.removeAll() }
        return visits
    }
}
