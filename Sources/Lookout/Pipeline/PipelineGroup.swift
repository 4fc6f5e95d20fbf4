import Dispatch

/// Several pipelines (one per camera) run side by side in one process, each on its own threads:
/// a camera lost, slow or ended never holds up another. A fatal failure of one (a camera lost
/// with reconnection off, a detector error) stops the others, so the process can exit with it.
public final class PipelineGroup: @unchecked Sendable {
    private let members = Locked<(pipelines: [DetectionPipeline], stopped: Bool)>(([], false))

    public init() {}

    /// Adds a pipeline; before `run()`.
    public func add(_ pipeline: DetectionPipeline) {
        members.withLock { $0.pipelines.append(pipeline) }
    }

    public var pipelines: [DetectionPipeline] { members.withLock { $0.pipelines } }

    /// Runs every pipeline until each has returned; their outcomes, in the order added.
    public func run() -> [DetectionPipeline.Outcome] {
        let pipelines = self.pipelines
        let outcomes = Locked([DetectionPipeline.Outcome?](repeating: nil, count: pipelines.count))
        let done = DispatchGroup()
        for (index, pipeline) in pipelines.enumerated() {
            done.enter()
            // A thread each: `run()` blocks until its input ends.
            DispatchQueue(label: "lookout.pipeline.run.\(pipeline.configuration.camera)").async { [self] in
                let outcome = pipeline.run()
                outcomes.withLock { $0[index] = outcome }
                if case .failed = outcome { stop() }
                done.leave()
            }
        }
        done.wait()
        return outcomes.withLock { $0.map { $0 ?? .stopped } }
    }

    /// Stops every pipeline, from any thread, without waiting; pipelines added later stop at once.
    public func stop() {
        let pipelines = members.withLock { state -> [DetectionPipeline] in
            state.stopped = true
            return state.pipelines
        }
        for pipeline in pipelines { pipeline.stop() }
    }

    /// Lets each pipeline's sinks deliver what they hold, every pipeline at the same time: each
    /// sink waits within the stop's one deadline (`StopDeadline`), so six cameras behind a silent
    /// broker take as long to stop as one.
    public func finishSinks() {
        let done = DispatchGroup()
        for pipeline in pipelines {
            // A thread each: a sink's finish blocks until it has delivered or its bound is reached.
            DispatchQueue(label: "lookout.pipeline.finish.\(pipeline.configuration.camera)").async(group: done) {
                pipeline.finishSinks()
            }
        }
        done.wait()
    }
}
