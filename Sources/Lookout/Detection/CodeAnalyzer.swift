/// Codes as an analyzer of a metadata output: on the frame lane, after motion; a frame found
/// unchanged gets the last look's codes again.
extension CodeAnalysis: FrameAnalyzer {
    var lane: AnalyzerLane { .everyFrame }

    var objectTypes: [MetadataObjectType] { MetadataObjectType.allCodeTypes }

    /// Pixels unless the frame would only be given the last (empty) result (`looksAtPixels`).
    /// Asked whether or not codes are wanted: with none, frames between whole-frame scans need
    /// no pixels either.
    func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed {
        looksAtPixels(at: time, generation: settings.generation, settings: settings.code) ? .plane : .nothing
    }

    /// Run on every frame, wanted or not, so that a change of types resets the readers at once.
    func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                 settings: MetadataOutput.Configuration) -> [MetadataObject] {
        guard context.changed else { return restamp(onto: frame, settings: settings.code) }
        // Windows look where the frame changed since the last look.
        if !context.still, settings.code.wholeFrameRate > 0 { gatherChanges(context.changedBlocks) }
        let start = MonotonicClock.nanoseconds()
        guard let objects = detect(in: frame, types: settings.types, generation: settings.generation,
                                   rectOfInterest: settings.rectOfInterest, settings: settings.code,
                                   still: context.still) else { return [] }
        let (secondPassReads, zxingLooks, zxingFailures) = (secondPassReads, zxingLooks, zxingFailures)
        context.counters.withLock {
            $0.codeTimes.record(since: start)
            $0.secondPassReads = secondPassReads
            $0.zxingLooks = zxingLooks
            $0.zxingFailures = zxingFailures
        }
        return objects
    }
}
