/// Faces as an analyzer of a metadata output: on the sampled lane, at `faceAnalysisRate`, with
/// the cascade loaded when the output joins a session (`FaceAnalysis` does the looking).
final class FaceAnalyzer: FrameAnalyzer {
    let configuration: FaceDetectorConfiguration
    /// Nil until prepared, or when the model could not be loaded.
    private(set) var analysis: FaceAnalysis?

    init(configuration: FaceDetectorConfiguration) {
        self.configuration = configuration
    }

    var lane: AnalyzerLane { .sampled }

    /// Asked on every frame: one array made once.
    private static let types: [MetadataObjectType] = [.face]
    var objectTypes: [MetadataObjectType] { Self.types }

    func prepare() throws(CaptureError) {
        if analysis == nil { analysis = try FaceAnalysis(configuration: configuration) }
    }

    func analysisRate(_ settings: MetadataOutput.Configuration) -> Double { settings.faceAnalysisRate }

    /// The whole plane for a whole search: the cascade finds fewer faces in a plane decoded at
    /// half scale than in the full plane shrunk by area (91 against 95 of 100 analyses of the
    /// 720p bench clip); windows around followed faces do as well in either.
    func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed {
        let whole = analysis?.isFullSearchDue(at: time, interval: MediaTime(seconds: settings.faceFullSearchInterval)) ?? true
        return whole ? .wholePlane : .plane
    }

    func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                 settings: MetadataOutput.Configuration) throws(CaptureError) -> [MetadataObject] {
        guard let analysis, isWanted(by: settings) else { return [] }
        guard context.changed else {
            let (objects, masked) = analysis.restamp(onto: frame, regions: settings.regions)
            context.counters.withLock {
                $0.faceAnalyses += 1
                $0.objectsMasked += masked
            }
            return objects
        }
        let start = MonotonicClock.nanoseconds()
        let (objects, masked) = try analysis.detect(in: frame, rectOfInterest: settings.rectOfInterest,
                                                    singleThreaded: settings.faceAnalysisRate > 0, regions: settings.regions,
                                                    fullSearchInterval: MediaTime(seconds: settings.faceFullSearchInterval))
        context.counters.withLock {
            $0.faceTimes.record(since: start)
            $0.faceAnalyses += 1
            $0.objectsMasked += masked
        }
        return objects
    }

    var isFollowing: Bool { analysis?.isFollowingFaces ?? false }
}
