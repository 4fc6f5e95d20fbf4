import Dispatch
import Foundation
@testable import Lookout
import Testing

/// Tells, at each camera's first analysed frame, how many frames the next camera's session had read.
private final class FirstOutputProbe: EventSink, @unchecked Sendable {
    let camera: Int
    let next: CaptureSession?
    let framesReadByNext = Locked<Int?>(nil)

    init(camera: Int, next: CaptureSession?) {
        self.camera = camera
        self.next = next
    }

    func consume(_ output: PipelineOutput) {
        guard output.frame != nil else { return }
        framesReadByNext.withLock { seen in
            if seen == nil { seen = next?.statistics.framesRead ?? 0 }
        }
    }
}

@Suite("Pipeline group start")
struct PipelineGroupStartTests {
    /// Cameras start one after another: when a camera's first frame has been analysed, the next
    /// camera's session has not read a frame yet (files read as fast as possible would have).
    @Test func eachPipelineStartsOnceThePreviousHasAnalysedItsFirstFrame() throws {
        let sessions = (0..<3).map { _ in CaptureSession() }
        let group = PipelineGroup(startInterval: 60)
        var probes: [FirstOutputProbe] = []
        for (index, session) in sessions.enumerated() {
            try session.addInput(try AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
            let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel))
            try session.addOutput(output)
            try output.setMetadataObjectTypes([.qr, .face])
            let pipeline = DetectionPipeline(session: session, metadataOutput: output,
                                             configuration: .init(source: "sample.mjpeg", camera: "c\(index)"))
            let probe = FirstOutputProbe(camera: index, next: index + 1 < sessions.count ? sessions[index + 1] : nil)
            pipeline.addSink(probe)
            probes.append(probe)
            group.add(pipeline)
        }
        let outcomes = group.run()
        #expect(outcomes.count == 3)
        for outcome in outcomes {
            guard case .inputEnded = outcome else {
                Issue.record("a pipeline ended with \(outcome)")
                continue
            }
        }
        for probe in probes {
            #expect(probe.framesReadByNext.withLock { $0 } == 0, "camera \(probe.camera)")
        }
        #expect(sessions.allSatisfy { $0.statistics.framesRead == 60 })
    }
}
