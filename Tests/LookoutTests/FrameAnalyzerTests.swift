import Testing
@testable import Lookout

/// A new detector is one type and one registration: the metadata output prepares it, schedules it
/// on its lane, gives it the frame it needs, masks and zones what it finds, and reports it.
@Suite(.serialized) struct FrameAnalyzerTests {
    static let marks = MetadataObjectType(rawValue: "test-marks")
    static let sampled = MetadataObjectType(rawValue: "test-sampled")
    static let unloadable = MetadataObjectType(rawValue: "test-unloadable")

    /// What an analyzer was given: each frame's sequence and how much its plane was shrunk.
    final class Looks: Sendable {
        let frames = Locked<[(sequence: UInt64, reduction: Int)]>([])
    }

    /// On every frame: two objects, one centred in the top-left quarter, one in the bottom-right.
    final class MarksAnalyzer: FrameAnalyzer {
        let looks = Looks()
        var lane: AnalyzerLane { .everyFrame }
        var objectTypes: [MetadataObjectType] { [FrameAnalyzerTests.marks] }
        func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed { .plane }
        func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                     settings: MetadataOutput.Configuration) -> [MetadataObject] {
            looks.frames.withLock { $0.append((frame.sequence, frame.lumaReduction)) }
            let (width, height) = (Double(frame.formatDescription.width), Double(frame.formatDescription.height))
            return [Rect(x: 0.2, y: 0.2, width: 0.1, height: 0.1), Rect(x: 0.7, y: 0.7, width: 0.1, height: 0.1)].map {
                MetadataObject(type: FrameAnalyzerTests.marks, frame: frame,
                               pixelBounds: Rect(x: $0.x * width, y: $0.y * height, width: $0.width * width, height: $0.height * height))
            }
        }
    }

    /// Ten times a second on the sampled lane, on whole planes; one object each time.
    final class SampledAnalyzer: FrameAnalyzer {
        let looks = Looks()
        var lane: AnalyzerLane { .sampled }
        var objectTypes: [MetadataObjectType] { [FrameAnalyzerTests.sampled] }
        func analysisRate(_ settings: MetadataOutput.Configuration) -> Double { 10 }
        func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed { .wholePlane }
        func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                     settings: MetadataOutput.Configuration) -> [MetadataObject] {
            looks.frames.withLock { $0.append((frame.sequence, frame.lumaReduction)) }
            return [MetadataObject(type: FrameAnalyzerTests.sampled, frame: frame, pixelBounds: Rect(x: 300, y: 150, width: 20, height: 20))]
        }
    }

    /// Its model cannot be loaded.
    final class UnloadableAnalyzer: FrameAnalyzer {
        var lane: AnalyzerLane { .sampled }
        var objectTypes: [MetadataObjectType] { [FrameAnalyzerTests.unloadable] }
        func prepare() throws(CaptureError) { throw .detectorFailed("test model missing") }
        func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed { .plane }
        func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                     settings: MetadataOutput.Configuration) -> [MetadataObject] {
            Issue.record("an analyzer that did not prepare was run")
            return []
        }
    }

    final class Reports: Sendable {
        let objects = Locked<[(sequence: UInt64, type: MetadataObjectType, zone: String?, centre: Point)]>([])
    }

    @Test func aRegisteredAnalyzerIsPreparedScheduledMaskedAndReported() throws {
        let marks = MarksAnalyzer(), sampled = SampledAnalyzer()
        let output = MetadataOutput(faceDetector: nil, codeScanResolution: .automatic,
                                    registering: [marks, sampled, UnloadableAnalyzer()])
        #expect(output.availableMetadataObjectTypes.isEmpty, "known once in a session")
        let session = CaptureSession()
        // face-walk.mjpeg: 40 frames of 480x270, read as 30 a second.
        try session.addInput(try AssetReaderInput(path: Fixtures.path("face-walk.mjpeg"), frameRate: 30))
        try session.addOutput(output)

        let available = output.availableMetadataObjectTypes
        #expect(available.contains(Self.marks) && available.contains(Self.sampled) && available.contains(.qr))
        #expect(!available.contains(Self.unloadable) && !available.contains(.face))
        #expect(throws: CaptureError.detectorFailed("test model missing")) {
            try output.setMetadataObjectTypes([Self.unloadable])
        }
        try output.setMetadataObjectTypes([Self.marks, Self.sampled])
        output.regions = try DetectionRegions(masks: [RegionPolygon(parsing: "0,0 0.5,0 0.5,0.5 0,0.5")],
                                              zones: [Zone(name: "corner", polygon: RegionPolygon(parsing: "0.5,0.5 1,0.5 1,1 0.5,1"))])
        let reports = Reports()
        output.addReportObserver(reports) { _, objects in
            reports.objects.withLock { $0 += objects.map { ($0.frameSequence, $0.type, $0.zone, $0.centre) } }
        }
        run(session)
        output.drain()

        // The frame lane: every frame, at half size (nothing else asks for more).
        let frameLooks = marks.looks.frames.withLock { $0 }
        #expect(frameLooks.map(\.sequence).sorted() == Array(0..<40))
        // The sampled lane: every third frame (10 a second of 30), whole, as it asked.
        let sampledLooks = sampled.looks.frames.withLock { $0 }
        #expect(sampledLooks.map(\.sequence) == Array(stride(from: UInt64(0), to: 40, by: 3)))
        #expect(sampledLooks.allSatisfy { $0.reduction == 1 }, "\(sampledLooks)")
        let sampledFrames = Set(sampledLooks.map(\.sequence))
        #expect(frameLooks.allSatisfy { $0.reduction == (sampledFrames.contains($0.sequence) ? 1 : 2) }, "\(frameLooks)")

        // Masked in the top-left quarter; the rest in their zone; all counted.
        let reported = reports.objects.withLock { $0 }
        let marksReported = reported.filter { $0.type == Self.marks }
        #expect(marksReported.count == 40)
        #expect(marksReported.allSatisfy { $0.zone == "corner" && $0.centre.x > 0.5 })
        #expect(reported.filter { $0.type == Self.sampled }.count == 14)
        let statistics = output.statistics
        #expect(statistics.objectsMasked == 40)
        #expect(statistics.objectsByType[Self.marks] == 40 && statistics.objectsByType[Self.sampled] == 14)
        #expect(statistics.framesAnalysed == 40)
    }
}
