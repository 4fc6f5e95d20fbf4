import Dispatch
import Foundation
import Testing
@testable import Lookout

/// Counts analysed frames, and those that came with their picture.
final class PictureCounter: MetadataOutputObjectsDelegate, @unchecked Sendable {
    let frames = Locked<[(sequence: UInt64, hasPicture: Bool)]>([])
    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject], from connection: CaptureConnection) {}
    func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame, from connection: CaptureConnection) {
        frames.withLock { $0.append((frame.sequence, frame.picture != nil)) }
    }
    var count: Int { frames.withLock { $0.count } }
}

@Suite("Capture requirements negotiated once", .serialized)
struct CaptureRequirementsTests {
    @Test func eachOutputStatesItsOwnAndTheSessionAgreesOnCommit() throws {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let metadata = MetadataOutput(codeScanResolution: .automatic)
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr])
        var agreed = session.agreedRequirements
        try #require(agreed.frameTakers.count == 1)
        #expect(agreed.frameTakers[0].requirements
                == OutputRequirements(halfPlaneMinimumWidth: CodeScanResolution.automaticHalfWidth))
        #expect(agreed.sourceFrameTakers.isEmpty)

        // A setting that changes what the output needs renegotiates at once.
        let before = agreed.generation
        metadata.unchangedFrameThreshold = 6
        metadata.attachesFramePictures = true
        try metadata.setMetadataObjectTypes([])
        agreed = session.agreedRequirements
        #expect(agreed.generation == before + 3)
        #expect(agreed.frameTakers.first?.requirements
                == OutputRequirements(wantsPicture: true, unchangedFrameTolerance: 6, halfPlaneMinimumWidth: 0))

        // Inside a configuration block nothing is agreed until the commit.
        let movie = MovieFileOutput(), photo = PhotoOutput()
        session.beginConfiguration()
        try session.addOutput(movie)
        try session.addOutput(photo)
        #expect(session.agreedRequirements.sourceFrameTakers.isEmpty)
        #expect(session.agreedRequirements.frameTakers.count == 1)
        session.commitConfiguration()
        agreed = session.agreedRequirements
        #expect(agreed.sourceFrameTakers.map { ObjectIdentifier($0.output) } == [ObjectIdentifier(movie)])
        #expect(agreed.frameTakers.map { ObjectIdentifier($0.connection.output) } == [ObjectIdentifier(metadata), ObjectIdentifier(photo)])
        #expect(agreed.frameTakers.last?.requirements == OutputRequirements(wantsPicture: true))
        #expect(agreed.connections.count == 3)

        session.removeOutput(movie)
        #expect(session.agreedRequirements.sourceFrameTakers.isEmpty)
    }

    @Test func aFrameNeedsWhatEveryOutputTakingItNeeds() {
        var needs = OutputRequirements.unconstrained
        needs.combine(OutputRequirements(unchangedFrameTolerance: 6, halfPlaneMinimumWidth: 1280))
        #expect(needs.acceptsHalfPlane(frameWidth: 1280) && !needs.acceptsHalfPlane(frameWidth: 854))
        #expect(needs.unchangedFrameTolerance == 6 && !needs.wantsPicture)
        needs.combine(OutputRequirements(wantsPicture: true, unchangedFrameTolerance: 8, halfPlaneMinimumWidth: 0))
        #expect(needs == OutputRequirements(wantsPicture: true, unchangedFrameTolerance: 6, halfPlaneMinimumWidth: 1280))
        needs.combine(OutputRequirements(halfPlaneMinimumWidth: 0).wholePlane)
        #expect(needs == OutputRequirements(wantsPicture: true, unchangedFrameTolerance: 0, halfPlaneMinimumWidth: nil))
        #expect(!needs.acceptsHalfPlane(frameWidth: 4096))
    }

    /// Pictures turned on while the session runs reach the frames after the change, and turned
    /// off stop being copied from the next frame on: the capture loop takes the new agreement.
    @Test func aSettingChangedWhileRunningReachesTheNextFrames() throws {
        let sample = try Fixtures.bytes("sample.mjpeg")
        let clip = temporaryClip(sample + sample + sample) // 180 frames, 6 s at 30 fps
        defer { unlink(clip) }
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: clip, pacing: .realTime, frameRate: 30))
        let metadata = MetadataOutput()
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr])
        let counter = PictureCounter()
        metadata.setMetadataObjectsDelegate(counter, queue: DispatchQueue(label: "test.pictures"))
        session.startRunning()
        defer { session.stopRunning() }

        #expect(eventually { counter.count >= 10 })
        let withoutPictures = counter.count
        #expect(session.statistics.picturesCopied == 0)
        metadata.attachesFramePictures = true
        #expect(eventually { counter.frames.withLock { $0.contains { $0.hasPicture } } }, "no frame came with a picture")
        let frames = counter.frames.withLock { $0 }
        #expect(frames.prefix(withoutPictures).allSatisfy { !$0.hasPicture })
        let firstPictured = try #require(frames.firstIndex { $0.hasPicture })
        #expect(firstPictured >= withoutPictures)

        metadata.attachesFramePictures = false
        let copiedAtChange = session.statistics.picturesCopied
        let analysedAtChange = counter.count
        #expect(eventually { counter.count >= analysedAtChange + 10 })
        // At most the frame already past the check when the setting changed is copied.
        #expect(session.statistics.picturesCopied - copiedAtChange <= 1)
    }
}
