import Dispatch
import Testing
@testable import Lookout

/// A face walking across a committed clip (face-walk.mjpeg: 480x270, 10 fps, 4 s; the astronaut's
/// head, about 75 px wide, moving 75 px a second) through the real cascade, verifier and tracker,
/// with the session dropping frames late as on a loaded machine: one face, one ID, one enter.
@Suite("Face track under drops", .serialized)
struct FaceTrackUnderDropsTests {
    /// A camera sending the clip's frames in real time, whose consumers are busy for the frames in
    /// between: after every `analysedEvery`-th frame it holds the metadata output's code queue
    /// (through a report observer) until that many frames have been offered, so the session drops
    /// those frames as late, exactly as it does when detection cannot keep up; before the next one
    /// it lets the queues finish, so that frame is taken, and taken for faces. No timing involved.
    final class BusyCamera: FrameSource, @unchecked Sendable {
        let sourceName = "face-walk"
        let isRealTime = true
        let pixelBudget = PixelBudget.standard
        private let clip: RecordedStreamSource
        private let analysedEvery: UInt64
        private let output: MetadataOutput
        private let held = DispatchSemaphore(value: 0)
        private var holding = false

        init(clip path: String, analysedEvery: UInt64, output: MetadataOutput) throws {
            clip = try RecordedStreamSource(path: path, pacing: .asFastAsPossible, frameRate: 10, pixelBudget: .standard)
            self.analysedEvery = analysedEvery
            self.output = output
            output.addReportObserver(self) { [held] frame, _ in
                if frame.analysedCodes { held.wait() }
            }
        }

        func nextFrame() throws(CaptureError) -> SourceFrame? {
            let frame = try clip.nextFrame()
            if frame == nil || frame.map({ $0.sequence % analysedEvery == 0 }) == true {
                if holding { held.signal() }
                holding = false
                output.drain()
                holding = frame != nil
            }
            return frame
        }

        func cancel() { clip.cancel() }
    }

    /// Feeds what the output reports to the event generator, on the delegate queue.
    final class EventRecorder: MetadataOutputObjectsDelegate, @unchecked Sendable {
        let state = Locked<(generator: EventGenerator, events: [DetectionEvent], faceIDs: [Int])>((EventGenerator(), [], []))
        private let pending = Locked<[MetadataObject]>([])

        func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
            pending.withLock { $0 = metadataObjects }
        }

        func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame, from connection: CaptureConnection) {
            let objects = pending.withLock { objects in
                defer { objects = [] }
                return objects
            }
            state.withLock { state in
                state.faceIDs += objects.compactMap { ($0 as? FaceObject)?.faceID }
                state.events += state.generator.process(objects, in: frame)
            }
        }
    }

    @Test func aWalkingFaceAnalysedOnlyEveryEighthFrameIsOneFaceWithOneEnter() throws {
        var faces = FaceDetectorConfiguration(cascadePath: Fixtures.faceModel)
        faces.verificationCascadePath = Fixtures.packageRoot + "/models/haarcascade_frontalface_alt2.xml"
        faces.scaleFactor = 1.25
        faces.confirmations = 2
        faces.trackRetention = MediaTime(seconds: 1)
        let output = MetadataOutput(faceDetector: faces)
        let session = CaptureSession()
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.face])
        output.faceAnalysisRate = 10
        let recorder = EventRecorder()
        output.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.face-track"))
        let camera = try BusyCamera(clip: Fixtures.path("face-walk.mjpeg"), analysedEvery: 8, output: output)
        try session.addInput(CaptureInput(source: camera))
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.face-track.session")) { event in
            if case .didStopRunning = event { stopped.signal() }
        }
        session.startRunning()
        #expect(stopped.wait(timeout: .now() + 300) == .success, "the clip did not end")
        session.stopRunning()

        // 40 frames: 0, 8, 16, 24 and 32 analysed, for faces too; the 35 others dropped as late.
        let statistics = output.statistics
        #expect(statistics.framesAnalysed == 5)
        #expect(statistics.faceAnalyses == 5)
        #expect(statistics.drops.byReason[.late] == 35)
        let (events, ids) = recorder.state.withLock { ($0.events, $0.faceIDs) }
        // Found on every analysis, 0.8 s and some 64 px (0.85 face widths) apart: confirmed by the
        // second, then one face throughout.
        #expect(ids.count == 4, "faces reported: \(ids)")
        #expect(Set(ids).count == 1, "face IDs \(ids)")
        let enters = events.compactMap { if case .faceEnter(let face) = $0 { face } else { nil } }
        #expect(enters.count == 1)
        #expect(enters.first?.faceID == ids.first)
        #expect(!events.contains { if case .faceLeave = $0 { true } else { false } })
    }
}
