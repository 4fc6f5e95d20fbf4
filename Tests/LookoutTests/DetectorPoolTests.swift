import COpenCV
import Dispatch
import Foundation
@testable import Lookout
import Testing

/// Jobs on a pool whose threads are all held by a gate job until every job is queued: the order
/// they then run in is the pool's choice alone.
private final class GatedPool: @unchecked Sendable {
    let pool: DetectorPool
    let order = Locked<[String]>([])
    private let gate = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()

    /// Holds every thread of a pool of `threads` (each in a gate job of its own, started).
    init(threads: Int) {
        pool = DetectorPool(threads: threads)
        let started = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            pool.lane(.codes).async { [gate] in
                started.signal()
                gate.wait()
            }
        }
        for _ in 0..<threads { started.wait() }
    }

    func add(_ name: String, to lane: DetectorPool.Lane) {
        add(to: lane) { record in record(name) }
    }

    /// A job that records what `body` tells it.
    func add(to lane: DetectorPool.Lane, _ body: @escaping @Sendable (_ record: (String) -> Void) -> Void) {
        done.enter()
        lane.async { [self] in
            body { name in order.withLock { $0.append(name) } }
            done.leave()
        }
    }

    /// Lets the threads go.
    func open() {
        for _ in 0..<pool.threadCount { gate.signal() }
    }

    /// Opens the gate and waits (60 s at most) for every job added.
    func release() -> [String] {
        open()
        _ = done.wait(timeout: .now() + 60)
        return order.withLock { $0 }
    }
}

/// Per-frame results that do not depend on timing: frame, type, text and position.
private func results(_ objects: [MetadataObject]) -> [String] {
    objects.map { object in
        let text = (object as? MachineReadableCodeObject)?.stringValue ?? ""
        let box = object.pixelBounds
        return "\(object.frameSequence) \(object.type.rawValue) \(text) \(Int(box.x)),\(Int(box.y)),\(Int(box.width)),\(Int(box.height))"
    }.sorted()
}

@Suite("Detector pool")
struct DetectorPoolTests {
    @Test func codesGoBeforeFacesAndTrackedFacesBeforeQuietOnes() {
        let gated = GatedPool(threads: 1)
        let quiet = gated.pool.lane(.faces), tracked = gated.pool.lane(.faces)
        tracked.priority = .trackedFaces
        let codesA = gated.pool.lane(.codes), codesB = gated.pool.lane(.codes)
        gated.add("quiet faces", to: quiet)
        gated.add("tracked faces", to: tracked)
        gated.add("codes A", to: codesA)
        gated.add("codes B", to: codesB)
        #expect(gated.release() == ["codes A", "codes B", "tracked faces", "quiet faces"])
        #expect(gated.pool.jobsRun == [.codes: 3, .trackedFaces: 1, .faces: 1])
    }

    /// Cameras tracking a face go first, but a quiet one still gets one face turn in three: a
    /// camera whose face was missed once is not left unanalysed while others track theirs.
    @Test func aQuietCameraGetsOneFaceTurnInThree() {
        let gated = GatedPool(threads: 1)
        let first = gated.pool.lane(.faces), second = gated.pool.lane(.faces), quiet = gated.pool.lane(.faces)
        first.priority = .trackedFaces
        second.priority = .trackedFaces
        for job in 1...3 {
            gated.add("first \(job)", to: first)
            gated.add("second \(job)", to: second)
        }
        gated.add("quiet", to: quiet)
        #expect(gated.release() == ["first 1", "second 1", "quiet", "first 2", "second 2", "first 3", "second 3"])
    }

    /// Three cameras with several jobs queued each take turns, one job each, in the order they
    /// became ready; each camera's own jobs keep their order.
    @Test func camerasOfOnePriorityTakeTurns() {
        let gated = GatedPool(threads: 1)
        let lanes = (0..<3).map { _ in gated.pool.lane(.codes) }
        for job in 1...4 {
            for (camera, lane) in zip(["A", "B", "C"], lanes) { gated.add("\(camera)\(job)", to: lane) }
        }
        #expect(gated.release() == ["A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3", "A4", "B4", "C4"])
    }

    /// Face jobs leave a thread for codes: with two threads, a second face job waits for the first
    /// while a code job queued after it runs at once.
    @Test func faceJobsLeaveAThreadForCodes() {
        let gated = GatedPool(threads: 2)
        #expect(gated.pool.faceThreadCount == 1)
        let first = gated.pool.lane(.faces), second = gated.pool.lane(.faces), codes = gated.pool.lane(.codes)
        let codeRan = DispatchSemaphore(value: 0)
        gated.add(to: first) { record in
            record("first face starts")
            // Queued after the second face job, yet run before it.
            gated.add(to: codes) { record in
                record("codes")
                codeRan.signal()
            }
            _ = codeRan.wait(timeout: .now() + 60)
            record("first face ends")
        }
        gated.add("second face", to: second)
        #expect(gated.release() == ["first face starts", "codes", "first face ends", "second face"])
    }

    /// A lane's priority changed while it waits applies from its next turn: it keeps its place.
    @Test func aWaitingLaneKeepsItsPlaceWhenItsPriorityChanges() {
        let gated = GatedPool(threads: 1)
        let first = gated.pool.lane(.faces), second = gated.pool.lane(.faces)
        gated.add("first 1", to: first)
        gated.add("first 2", to: first)
        gated.add("second", to: second)
        first.priority = .trackedFaces
        // first 1 ran as a quiet lane; its next turn is as a tracked one, before second.
        #expect(gated.release() == ["first 1", "first 2", "second"])
        #expect(gated.pool.jobsRun == [.codes: 1, .faces: 2, .trackedFaces: 1])
    }

    /// Eight cameras keeping one job each in flight, as metadata outputs do (the next queued by
    /// the one running): they take turns, none twice before every other once. One thread, as the
    /// system may stall any thread of several for a while, and the camera it holds with it.
    @Test func everyCameraGetsItsShare() throws {
        // Every camera's first job is queued before any runs.
        let gated = GatedPool(threads: 1)
        let pool = gated.pool
        let cameras = 8, total = 4000
        let counts = Locked([Int](repeating: 0, count: cameras))
        let finished = DispatchGroup()
        let turns = Locked<[Int]>([])
        let lanes = (0..<cameras).map { _ in pool.lane(.codes) }
        @Sendable func next(_ camera: Int) {
            lanes[camera].async {
                let more = counts.withLock { counts -> Bool in
                    guard counts.reduce(0, +) < total else { return false }
                    counts[camera] += 1
                    turns.withLock { $0.append(camera) }
                    return true
                }
                if more { next(camera) } else { finished.leave() }
            }
        }
        for camera in 0..<cameras {
            finished.enter()
            next(camera)
        }
        gated.open()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(counts.withLock { $0 } == Array(repeating: total / cameras, count: cameras))
        #expect(turns.withLock { $0 } == (0..<total).map { $0 % cameras })
    }

    @Test func syncWaitsForTheLanesEarlierJobs() {
        let pool = DetectorPool(threads: 2)
        let lane = pool.lane(.faces)
        let log = Locked<[Int]>([])
        for index in 0..<50 { lane.async { log.withLock { $0.append(index) } } }
        let seen = lane.sync { log.withLock { $0 } }
        #expect(seen == Array(0..<50))
    }

    /// Detectors of the same model files share the parsed cascades: each thread detecting holds
    /// one copy, however many detectors.
    @Test func detectorsOfTheSameFilesShareOneCopyPerThread() throws {
        // Files of this test's own: other tests' detectors do not share them.
        let folder = NSTemporaryDirectory() + "lookout-cascades-\(UUID().uuidString)/"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["haarcascade_frontalface_default.xml", "haarcascade_frontalface_alt2.xml"] {
            try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/models/" + name, toPath: folder + name)
        }
        var configuration = FaceDetectorConfiguration(cascadePath: folder + "haarcascade_frontalface_default.xml")
        configuration.verificationCascadePath = folder + "haarcascade_frontalface_alt2.xml"
        let detectors = try (0..<16).map { _ in try FaceDetector(configuration: configuration) }
        #expect(detectors.allSatisfy { $0.cascadeCopies == 1 })
        // Removed files still give new threads their cascades (the set holds them open).
        try FileManager.default.removeItem(atPath: folder)
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let region = (x: 0, y: 0, width: image.width, height: image.height)
        let expected = try detectors[0].detect(image, region: region, singleThreaded: true)
        #expect(!expected.isEmpty)
        // Another thread makes its own copy, once, for all sixteen.
        let elsewhere = DetectorPool(threads: 1)
        let found = elsewhere.lane(.faces).sync {
            detectors.map { try? $0.detect(image, region: region, singleThreaded: true) }
        }
        #expect(found.allSatisfy { $0 == expected })
        #expect(detectors.allSatisfy { $0.cascadeCopies == 2 })
        withExtendedLifetime(elsewhere) {}
    }

    /// Several cameras' clips read as fast as possible on one or two detector threads: every frame
    /// is analysed and gives what the clip gives alone.
    @Test(arguments: [1, 2])
    func sessionsSharingAPoolAnalyseEveryFrameAsAlone(threads: Int) throws {
        let clips = ["sample.mjpeg", "face-walk.mjpeg", "events-codes.mjpeg", "sample.mjpeg"]
        func analyse(_ clips: [String], pool: DetectorPool) throws -> [(frames: Int, analysed: Int, faces: Int, found: [String])] {
            let sessions = try clips.map { clip -> (CaptureSession, MetadataOutput, ObjectRecorder) in
                let session = CaptureSession()
                try session.addInput(try AssetReaderInput(path: Fixtures.path(clip)))
                let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel),
                                            detectorPool: pool)
                try session.addOutput(output)
                try output.setMetadataObjectTypes([.qr, .ean13, .face])
                output.faceAnalysisRate = 10
                let recorder = ObjectRecorder()
                output.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.pool.\(clip)"))
                return (session, output, recorder)
            }
            let stopped = DispatchGroup()
            for (session, _, _) in sessions {
                stopped.enter()
                session.setEventHandler(queue: DispatchQueue(label: "test.pool.events")) { event in
                    if case .didStopRunning = event { stopped.leave() }
                }
            }
            for (session, _, _) in sessions { session.startRunning() }
            #expect(stopped.wait(timeout: .now() + 300) == .success, "the sessions did not stop")
            return sessions.map { session, output, recorder in
                (session.statistics.framesRead, output.statistics.framesAnalysed, output.statistics.faceAnalyses,
                 results(recorder.objects.withLock { $0 }))
            }
        }
        let shared = try analyse(clips, pool: DetectorPool(threads: threads))
        try #require(shared.count == clips.count)
        for (index, clip) in clips.enumerated() {
            let alone = try #require(try analyse([clip], pool: DetectorPool(threads: 2)).first)
            #expect(alone.frames > 0 && alone.analysed == alone.frames, "\(clip) alone")
            #expect(!alone.found.isEmpty, "\(clip) alone found nothing")
            #expect(shared[index].frames == alone.frames, "\(clip)")
            #expect(shared[index].analysed == alone.frames, "\(clip)")
            #expect(shared[index].faces == alone.faces, "\(clip)")
            #expect(shared[index].found == alone.found, "\(clip)")
        }
    }
}
