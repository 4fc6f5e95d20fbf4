/// Motion as an analyzer of a metadata output: first on the frame lane, it tells the others
/// whether the frame changed since the last one analysed (`MotionGate`) and where, so that an
/// unchanged frame gets the last results again. Finds no objects; does nothing with
/// `unchangedFrameThreshold` at 0.
final class MotionAnalyzer: FrameAnalyzer {
    /// Whether frames may come as whole and half-size planes in turn (codes read at half size).
    let codeScanResolution: CodeScanResolution
    private var gate: MotionGate?
    private var regionsGeneration = 0

    init(codeScanResolution: CodeScanResolution) {
        self.codeScanResolution = codeScanResolution
    }

    var lane: AnalyzerLane { .everyFrame }

    var objectTypes: [MetadataObjectType] { [] }

    func isWanted(by settings: MetadataOutput.Configuration) -> Bool { settings.unchangedFrameThreshold > 0 }

    /// Whatever the others need: a frame taken without pixels is the last one again.
    func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed { .nothing }

    func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                 settings: MetadataOutput.Configuration) -> [MetadataObject] {
        guard !context.still else { return [] }
        guard isWanted(by: settings) else {
            gate = nil
            return []
        }
        // Whole and half-size planes in turn (see the output's requirements) compare only when
        // whole planes are sampled in full.
        let mayMixPlaneSizes = codeScanResolution.acceptsHalfSizePlanes(for: settings.types,
                                                                        frameWidth: frame.formatDescription.width)
        if gate?.threshold != settings.unchangedFrameThreshold || gate?.samplesEveryPixel != mayMixPlaneSizes
            || regionsGeneration != settings.regionsGeneration {
            gate = MotionGate(threshold: settings.unchangedFrameThreshold, samplesEveryPixel: mayMixPlaneSizes,
                              masks: settings.regions.masks)
            regionsGeneration = settings.regionsGeneration
        }
        context.changed = gate!.hasChanged(frame.imageBuffer, reduction: frame.lumaReduction)
        if context.changed {
            context.changedBlocks = gate!.changedBlocks
        } else {
            context.counters.withLock { $0.framesUnchanged += 1 }
        }
        return []
    }
}
