import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Lookout

/// Records what a video data output delivers; optionally slow, optionally holding buffers,
/// optionally busy with its first frame until `release()`.
final class RecordingDelegate: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    let sequences = Locked<[UInt64]>([])
    let drops = Locked<[FrameDrop]>([])
    let held = Locked<[SampleBuffer]>([])
    let delay: Double
    let holdBuffers: Atomic<Bool>
    private let busy: DispatchSemaphore?

    init(delay: Double = 0, holdBuffers: Bool = false, busyUntilReleased: Bool = false) {
        self.delay = delay
        self.holdBuffers = Atomic(holdBuffers)
        busy = busyUntilReleased ? DispatchSemaphore(value: 0) : nil
    }

    /// Ends the first call's wait (`busyUntilReleased`).
    func release() { busy?.signal() }

    /// Stops holding buffers and lets go of those held.
    func releaseBuffers() {
        holdBuffers.store(false, ordering: .relaxed)
        held.withLock { $0.removeAll() }
    }

    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        sequences.withLock { $0.append(sampleBuffer.sequence) }
        if holdBuffers.load(ordering: .relaxed) { held.withLock { $0.append(sampleBuffer) } }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        if let busy {
            busy.wait()
            busy.signal() // later calls pass
        }
    }

    func captureOutput(_ output: VideoDataOutput, didDrop drop: FrameDrop, from connection: CaptureConnection) {
        drops.withLock { $0.append(drop) }
    }

    func dropped(_ reason: DropReason) -> Int {
        drops.withLock { $0.filter { $0.reason == reason }.reduce(0) { $0 + $1.count } }
    }
}

final class MetadataRecorder: MetadataOutputObjectsDelegate, @unchecked Sendable {
    let frames = Locked<[UInt64]>([])
    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
        if let first = metadataObjects.first { frames.withLock { $0.append(first.frameSequence) } }
    }
}

/// Records the frame and plane size of every frame a video data output delivers.
final class FrameSizeRecorder: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    let sizes = Locked<[[Int]]>([])
    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let format = sampleBuffer.formatDescription, plane = sampleBuffer.imageBuffer
        sizes.withLock { $0.append([format.width, format.height, plane.width, plane.height]) }
    }
}

/// Keeps every metadata object delivered.
final class ObjectRecorder: MetadataOutputObjectsDelegate, @unchecked Sendable {
    let objects = Locked<[MetadataObject]>([])
    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {
        objects.withLock { $0 += metadataObjects }
    }
}

/// Runs a session until its input ends (or, with `stopWhen`, until that holds: then it is stopped).
func run(_ session: CaptureSession, stopWhen: (() -> Bool)? = nil, timeout: Double = 60) {
    let stopped = DispatchSemaphore(value: 0)
    session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
        if case .didStopRunning = event { stopped.signal() }
    }
    session.startRunning()
    if let stopWhen {
        #expect(eventually(timeout: timeout, stopWhen), "the condition to stop never held")
        session.stopRunning()
    }
    let result = stopped.wait(timeout: .now() + timeout)
    #expect(result == .success, "the session did not stop within \(timeout) s")
}

/// `bytes` in a temporary file (removed by the caller).
func temporaryClip(_ bytes: [UInt8], suffix: String = ".mjpeg") -> String {
    let path = NSTemporaryDirectory() + "lookout-clip-\(UUID().uuidString)" + suffix
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return path
}

@Suite("Capture session buffer flow")
struct CaptureSessionTests {
    @Test func recordedInputDeliversEveryFrameInOrderToEveryOutput() throws {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let video = VideoDataOutput()
        let delegate = RecordingDelegate(delay: 0.002)
        video.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "test.video"))
        try session.addOutput(video)
        let metadata = MetadataOutput()
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr])
        let recorder = MetadataRecorder()
        metadata.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.metadata"))
        run(session)
        #expect(delegate.sequences.withLock { $0 } == Array(0..<60))
        #expect(delegate.drops.withLock { $0.isEmpty })
        #expect(metadata.statistics.framesAnalysed == 60)
        #expect(recorder.frames.withLock { $0 } == Array(0..<60))
        #expect(session.statistics.framesRead == 60)
        #expect(!session.isRunning)
    }

    /// Codes at half resolution let the session decode JPEG frames at half size; objects still come
    /// in the frame's pixels, and a video data output in the same session still gets whole frames.
    @Test(arguments: [false, true])
    func halfResolutionCodesDecodeAtHalfSizeUnlessAnOutputNeedsTheWholeFrame(withVideoOutput: Bool) throws {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let video = VideoDataOutput()
        let frames = FrameSizeRecorder()
        if withVideoOutput {
            video.setSampleBufferDelegate(frames, queue: DispatchQueue(label: "test.video"))
            try session.addOutput(video)
        }
        let metadata = MetadataOutput(codeScanResolution: .half)
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr, .ean13])
        let objects = ObjectRecorder()
        metadata.setMetadataObjectsDelegate(objects, queue: DispatchQueue(label: "test.metadata"))
        run(session)

        #expect(session.statistics.framesDecodedAtHalfSize == (withVideoOutput ? 0 : 60))
        if withVideoOutput {
            #expect(frames.sizes.withLock { $0 }.count == 60)
            #expect(frames.sizes.withLock { $0 }.allSatisfy { $0 == [1280, 720, 1280, 720] }, "video frames were reduced")
        }
        let found = objects.objects.withLock { $0 }
        #expect(found.filter { $0.type == .qr }.count == 60)
        #expect(found.filter { $0.type == .ean13 }.count == 60)
        for object in found {
            #expect(object.imageWidth == 1280 && object.imageHeight == 720)
            #expect(abs(object.bounds.x - object.pixelBounds.x / 1280) < 1e-9)
        }
        // Where full resolution reads the codes, frame by frame (within 3 px).
        let session2 = CaptureSession()
        try session2.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let reference = MetadataOutput()
        try session2.addOutput(reference)
        try reference.setMetadataObjectTypes([.qr, .ean13])
        let expected = ObjectRecorder()
        reference.setMetadataObjectsDelegate(expected, queue: DispatchQueue(label: "test.reference"))
        run(session2)
        #expect(session2.statistics.framesDecodedAtHalfSize == 0)
        let wanted = expected.objects.withLock { $0 }
        #expect(wanted.count == 120)
        for object in wanted {
            let want = object.pixelBounds
            let got = try #require(found.first { $0.type == object.type && $0.frameSequence == object.frameSequence }).pixelBounds
            #expect(abs(got.x - want.x) <= 3 && abs(got.y - want.y) <= 3 && abs(got.maxX - want.maxX) <= 3
                    && abs(got.maxY - want.maxY) <= 3, "frame \(object.frameSequence) \(object.type): \(got) against \(want)")
        }
    }

    @Test func slowDelegateOnRealTimeInputDropsLateFramesAndNeverStallsCapture() throws {
        let session = CaptureSession()
        // 60 frames paced at 120 fps: half a second of "camera".
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg"), pacing: .realTime, frameRate: 120))
        let video = VideoDataOutput()
        let delegate = RecordingDelegate(busyUntilReleased: true)
        video.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "test.video"))
        try session.addOutput(video)
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
            if case .didStopRunning = event { stopped.signal() }
        }
        session.startRunning()
        // Capture keeps its pace: it reads the whole clip while the delegate is still busy with
        // its first frame.
        #expect(eventually { session.statistics.framesRead == 60 }, "capture stalled at frame \(session.statistics.framesRead)")
        #expect(delegate.sequences.withLock { $0 } == [0])
        delegate.release()
        #expect(stopped.wait(timeout: .now() + 60) == .success)
        let delivered = delegate.sequences.withLock { $0 }
        let late = delegate.dropped(.late)
        // Every frame that came while the delegate was busy dropped as late, and counted.
        #expect(delivered == [0] && late == 59, "\(delivered), \(late) late")
        #expect(video.droppedFrames[.late] == 59)
    }

    @Test func delegateHoldingEveryBufferCausesOutOfBufferDropsThenRecovers() throws {
        let session = CaptureSession()
        // Four times the sample at 60 fps: 4 s, frames to spare after the release.
        let sample = try Fixtures.bytes("sample.mjpeg")
        let clip = temporaryClip(Array([[UInt8]](repeating: sample, count: 4).joined()))
        defer { unlink(clip) }
        try session.addInput(try AssetReaderInput(path: clip, pacing: .realTime, frameRate: 60))
        let video = VideoDataOutput()
        video.alwaysDiscardsLateVideoFrames = false
        let delegate = RecordingDelegate(holdBuffers: true)
        video.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "test.video"))
        try session.addOutput(video)
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
            if case .didStopRunning = event { stopped.signal() }
        }
        session.startRunning()
        #expect(eventually { video.droppedFrames[.outOfBuffers] > 0 }, "no frame dropped for want of a buffer")
        let heldBeforeRelease = delegate.held.withLock { $0.count }
        let deliveredBeforeRelease = delegate.sequences.withLock { $0.count }
        #expect(heldBeforeRelease == CaptureSession.imageBufferCount, "the pool is fixed: no more frames than buffers")
        // Let go of the buffers: delivery resumes with later frames, to the clip's last.
        delegate.releaseBuffers()
        #expect(stopped.wait(timeout: .now() + 60) == .success)
        let sequences = delegate.sequences.withLock { $0 }
        #expect(sequences.count > deliveredBeforeRelease, "capture did not resume after buffers were released")
        #expect(sequences.last == 239)
        #expect(delegate.dropped(.outOfBuffers) == video.droppedFrames[.outOfBuffers])
    }

    @Test func corruptFramesAreSkippedCountedAndTheStreamGoesOn() throws {
        let frames = naiveFrames(try Fixtures.bytes("sample.mjpeg"))
        try #require(frames.count == 60)
        var damaged = frames[1]
        for i in stride(from: damaged.count / 3, to: damaged.count - 2, by: 3) { damaged[i] = 0x17 }
        let stream = frames[0] + Array(frames[1].prefix(900)) + frames[2] + damaged + frames[3]
        let path = temporaryClip(stream)
        defer { unlink(path) }
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: path))
        let video = VideoDataOutput()
        let delegate = RecordingDelegate()
        video.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "test.video"))
        try session.addOutput(video)
        run(session)
        #expect(delegate.sequences.withLock { $0 } == [0, 2, 4])
        #expect(delegate.dropped(.corrupt) == 2)
        #expect(session.statistics.framesCorrupt == 2)
    }

    @Test func stopRunningReportsEveryFrameAlreadyCaptured() throws {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg"), pacing: .realTime, frameRate: 30))
        let metadata = MetadataOutput()
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr, .ean13])
        let recorder = MetadataRecorder()
        metadata.setMetadataObjectsDelegate(recorder, queue: DispatchQueue(label: "test.metadata"))
        // Stopped once the first frames have been analysed, well before the 2 s clip ends.
        run(session, stopWhen: { metadata.statistics.framesAnalysed >= 3 })
        let reported = recorder.frames.withLock { $0.count }
        #expect(reported > 0 && reported < 60)
        #expect(reported == metadata.statistics.framesAnalysed, "every analysed frame reached the delegate before stop returned")
    }

    @Test func outputsAddedWhileRunningJoinAtCommit() throws {
        let session = CaptureSession()
        // Four times the sample at 60 fps: 4 s, frames to spare for both outputs.
        let sample = try Fixtures.bytes("sample.mjpeg")
        let clip = temporaryClip(Array([[UInt8]](repeating: sample, count: 4).joined()))
        defer { unlink(clip) }
        try session.addInput(try AssetReaderInput(path: clip, pacing: .realTime, frameRate: 60))
        let first = VideoDataOutput(), second = VideoDataOutput()
        let firstDelegate = RecordingDelegate(), secondDelegate = RecordingDelegate()
        first.setSampleBufferDelegate(firstDelegate, queue: DispatchQueue(label: "test.first"))
        second.setSampleBufferDelegate(secondDelegate, queue: DispatchQueue(label: "test.second"))
        try session.addOutput(first)
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
            if case .didStopRunning = event { stopped.signal() }
        }
        session.startRunning()
        #expect(eventually { !firstDelegate.sequences.withLock { $0.isEmpty } }, "the first output got no frame")
        session.beginConfiguration()
        try session.addOutput(second)
        session.removeOutput(first)
        // Frames go on being read while the change waits for its commit.
        let readAtBegin = session.statistics.framesRead
        #expect(eventually { session.statistics.framesRead >= readAtBegin + 3 }, "no frame read during the configuration")
        let seenBeforeCommit = secondDelegate.sequences.withLock { $0.count }
        session.commitConfiguration()
        #expect(stopped.wait(timeout: .now() + 60) == .success)
        #expect(seenBeforeCommit == 0, "changes showed before commitConfiguration()")
        let firstFrames = firstDelegate.sequences.withLock { $0 }, secondFrames = secondDelegate.sequences.withLock { $0 }
        #expect(!firstFrames.isEmpty && !secondFrames.isEmpty)
        // The switch happened between two frames: no frame went to both, none after the switch to the first.
        #expect((firstFrames.last ?? 0) < (secondFrames.first ?? 0))
        #expect(secondFrames.last == 239)
    }

    @Test func aSessionTakesOneInput() throws {
        let session = CaptureSession()
        let first = try AssetReaderInput(path: Fixtures.path("qr-420.y4m"))
        try session.addInput(first)
        let second = try AssetReaderInput(path: Fixtures.path("qr-mono.y4m"))
        #expect(!session.canAddInput(second))
        #expect(throws: CaptureError.self) { try session.addInput(second) }
    }

    @Test func missingAndUnrecognizedInputsSayWhy() throws {
        #expect(throws: CaptureError.input(.notFound(path: "/nonexistent.mjpeg"))) {
            _ = try AssetReaderInput(path: "/nonexistent.mjpeg")
        }
        let error = #expect(throws: CaptureError.self) { _ = try AssetReaderInput(path: Fixtures.path("ean13.png")) }
        guard case .input(.unrecognizedStream(_, let bytes))? = error else {
            Issue.record("expected unrecognizedStream, got \(String(describing: error))")
            return
        }
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}

@Suite("Buffer pool")
struct BufferPoolTests {
    @Test func pixelBufferGoesBackToThePoolWhenTheLastHolderLetsGo() throws {
        let pool = BufferPool(count: 2)
        var images: [PixelBuffer] = []
        for _ in 0..<2 {
            let index = try #require(pool.acquire(capacity: 16, wait: false))
            images.append(PixelBuffer(width: 4, height: 4, bytesPerRow: 4, pool: pool, poolIndex: index))
        }
        #expect(pool.acquire(capacity: 16, wait: false) == nil)
        var sample: SampleBuffer? = SampleBuffer(sequence: 0, presentationTime: .zero, wallClockTime: .now(),
                                                  formatDescription: VideoFormatDescription(width: 4, height: 4, pixelFormat: .gray),
                                                  imageBuffer: images.removeLast())
        #expect(pool.freeCount == 0)
        _ = sample?.sequence
        sample = nil
        #expect(pool.freeCount == 1)
        images.removeAll()
        #expect(pool.freeCount == 2)
    }
}
