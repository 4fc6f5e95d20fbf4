import Testing
@testable import Lookout

/// The face tracker and the events it feeds, analysis by analysis, as the metadata output drives
/// them: faces moving while analyses are dropped or miss them keep one ID and one visit; a face
/// gone for longer than the leave delay leaves once and comes back as a new face.
@Suite("Face track continuity")
struct FaceTrackContinuityTests {
    /// The tracker with the defaults of video (leave delay 1 s, two confirmations) and the event
    /// generator behind it, fed the boxes a detector found at each analysis.
    final class Scene {
        let tracker = FaceTracker(leaveRule: FaceLeaveRule(delay: MediaTime(seconds: 1)), confirmations: 2)
        var events = EventGenerator()
        private(set) var enters: [(id: Int, at: Double)] = []
        private(set) var leaves: [(id: Int, at: Double, lastSeen: Double)] = []
        private let image: PixelBuffer
        private var sequence: UInt64 = 0

        init() throws {
            let pool = BufferPool(count: 1)
            let index = try #require(pool.acquire(capacity: 16, wait: false))
            image = PixelBuffer(width: 4, height: 4, bytesPerRow: 4, pool: pool, poolIndex: index)
        }

        /// One analysis: the IDs given to `boxes` (0 for a face not yet confirmed).
        @discardableResult
        func analyse(_ boxes: [Rect], at seconds: Double) -> [Int] {
            sequence += 1
            let frame = SampleBuffer(sequence: sequence, presentationTime: MediaTime(seconds: seconds), wallClockTime: .now(),
                                     formatDescription: VideoFormatDescription(width: 1280, height: 720, pixelFormat: .gray),
                                     imageBuffer: image)
            let tracked = tracker.track(boxes, at: frame.presentationTime)
            let faces = zip(boxes, tracked).compactMap { box, track in
                track.isConfirmed ? FaceObject(frame: frame, pixelBounds: box, faceID: track.id) : nil
            }
            for event in events.process(faces, in: AnalysedFrame(frame, analysedCodes: false, analysedFaces: true)) {
                switch event {
                case .faceEnter(let face): enters.append((face.faceID, seconds))
                case .faceLeave(let leave): leaves.append((leave.faceID, seconds, leave.lastSeen.seconds))
                default: break
                }
            }
            return tracked.map { $0.isConfirmed ? $0.id : 0 }
        }

        /// The code queue's report of the frame at `seconds` (nothing found).
        func codes(at seconds: Double) {
            sequence += 1
            let frame = AnalysedFrame(sequence: sequence, presentationTime: MediaTime(seconds: seconds), wallClockTime: .now(),
                                      width: 1280, height: 720, analysedCodes: true, analysedFaces: false)
            #expect(events.process([], in: frame).isEmpty)
        }
    }

    static func face(x: Double, y: Double = 200, size: Double = 80) -> Rect {
        Rect(x: x, y: y, width: size, height: size)
    }

    /// A face walking at 200 px/s (2.5 face widths a second): analysed 10 times a second, then,
    /// under load, only at 1.8 s (missing it) and 2.6 s (four widths on), then 10 a second again.
    @Test func aMovingFaceKeepsOneIDThroughDroppedAndMissedAnalyses() throws {
        let scene = try Scene()
        var ids: Set<Int> = []
        let times = Array(stride(from: 0.0, through: 1.0, by: 0.1)) + [1.8, 2.6] + Array(stride(from: 2.7, through: 4.0, by: 0.1))
        for t in times {
            let boxes = t == 1.8 ? [] : [Self.face(x: 100 + 200 * t)]
            ids.formUnion(scene.analyse(boxes, at: t).filter { $0 != 0 })
        }
        #expect(ids.count == 1, "IDs \(ids.sorted())")
        #expect(scene.enters.map(\.at) == [0.1])
        #expect(scene.leaves.isEmpty, "left: \(scene.leaves)")
    }

    /// In view 0-2 s, away 2-4.5 s, back 4.5-6 s: a second visit with a new ID, one leave for the
    /// first, after the leave delay; paced, and with analyses 0.7 s apart.
    @Test(arguments: [0.1, 0.7])
    func aFaceGoneLongerThanTheLeaveDelayGetsANewIDAndExactlyOneLeave(interval: Double) throws {
        let scene = try Scene()
        var firstVisit: Set<Int> = [], secondVisit: Set<Int> = []
        for n in 0...Int(6 / interval) {
            let t = Double(n) * interval
            let inView = t < 2 || t >= 4.5
            let ids = scene.analyse(inView ? [Self.face(x: 300 + 10 * t)] : [], at: t).filter { $0 != 0 }
            if t < 2 { firstVisit.formUnion(ids) } else { secondVisit.formUnion(ids) }
        }
        #expect(firstVisit.count == 1 && secondVisit.count == 1 && firstVisit.isDisjoint(with: secondVisit),
                "IDs \(firstVisit.sorted()) then \(secondVisit.sorted())")
        #expect(scene.enters.map(\.id) == Array(firstVisit) + Array(secondVisit))
        let leave = try #require(scene.leaves.first, "no face_leave")
        #expect(scene.leaves.count == 1)
        #expect(leave.id == firstVisit.first)
        // Never before the delay, and within the longest absence the rule allows.
        #expect(leave.at - leave.lastSeen > 1 && leave.at - leave.lastSeen <= 3 + interval, "left at \(leave.at), last seen \(leave.lastSeen)")
        #expect(leave.at < 4.5)
    }

    /// Two faces walking past each other, one a little above the other, analysed 2.5 times a
    /// second (each moves 0.75 of its width between analyses).
    @Test func twoFacesCrossingKeepTheirIDs() throws {
        let scene = try Scene()
        var a: Set<Int> = [], b: Set<Int> = []
        for n in 0...12 {
            let t = Double(n) * 0.4
            let ids = scene.analyse([Self.face(x: 200 + 150 * t, y: 200), Self.face(x: 800 - 150 * t, y: 260)], at: t)
            try #require(ids.count == 2)
            if ids[0] != 0 { a.insert(ids[0]) }
            if ids[1] != 0 { b.insert(ids[1]) }
        }
        #expect(a.count == 1 && b.count == 1 && a != b, "A \(a.sorted()), B \(b.sorted())")
        #expect(scene.enters.count == 2)
        #expect(scene.leaves.isEmpty)
    }

    /// A stream restarted (its clock back at 0) ends the tracks: the face found there again is a
    /// new face, and the old one leaves once, after the delay on the events' clock.
    @Test func aClockGoingBackwardsStillEndsTracks() throws {
        let scene = try Scene()
        var before: Set<Int> = [], after: Set<Int> = []
        for n in 0...10 { before.formUnion(scene.analyse([Self.face(x: 300)], at: 10 + 0.1 * Double(n)).filter { $0 != 0 }) }
        for n in 0...30 { after.formUnion(scene.analyse(n < 5 ? [] : [Self.face(x: 300)], at: 0.1 * Double(n)).filter { $0 != 0 }) }
        #expect(before.count == 1 && after.count == 1 && before.isDisjoint(with: after), "\(before.sorted()) then \(after.sorted())")
        #expect(scene.leaves.map(\.id) == Array(before))
        #expect(scene.enters.map(\.id) == Array(before) + Array(after))
        // A face missed by many analyses far apart has left whatever their count.
        let tracker = FaceTracker(leaveRule: FaceLeaveRule(delay: MediaTime(seconds: 1)))
        let first = tracker.assignIDs(to: [Self.face(x: 300)], at: MediaTime(seconds: 0))
        _ = tracker.assignIDs(to: [], at: MediaTime(seconds: 2))
        #expect(tracker.assignIDs(to: [Self.face(x: 300)], at: MediaTime(seconds: 2.9)) == first)
        _ = tracker.assignIDs(to: [], at: MediaTime(seconds: 3))
        #expect(tracker.assignIDs(to: [Self.face(x: 300)], at: MediaTime(seconds: 6.1)) != first)
    }

    /// Under load the face queue reports a frame after the code queue has reported later ones
    /// (here 0.5 s later, every frame): the face's times and its leave stay on the stream's clock.
    @Test func faceReportsComingAfterLaterCodeReportsKeepTheStreamsTime() throws {
        let scene = try Scene()
        for n in 0...60 {
            let t = Double(n) * 0.1
            scene.codes(at: t + 0.5)
            scene.analyse(t <= 2 ? [Self.face(x: 300)] : [], at: t)
        }
        let leave = try #require(scene.leaves.first, "no face_leave")
        #expect(scene.leaves.count == 1)
        #expect(abs(leave.lastSeen - 2) < 1e-6, "last seen at \(leave.lastSeen)")
        #expect(abs(leave.at - 3.1) < 1e-6, "left at \(leave.at)")
    }
}
