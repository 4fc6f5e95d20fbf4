import Dispatch

/// Several pipelines (one per camera) run side by side in one process, each on its own threads:
/// a camera lost, slow or ended never holds up another. A fatal failure of one (a camera lost
/// with reconnection off, a detector error) stops the others, so the process can exit with it.
///
/// Pipelines can be added and removed while the group runs (a reload): an added one starts at
/// once, a removed one is stopped and its sinks finished, and the others go on untouched.
///
/// `run()` starts its pipelines one after another, each once the one before has analysed its first
/// frame (or ended, or after `startInterval`): 64 cameras do not all analyse their first frame, the
/// costliest, at once, and their face analyses fall at different moments from then on. A camera
/// with no frame yet after `quietStartWait` (a network camera connecting, one unplugged) does not
/// hold up the next: its first analysis comes whenever its frames do.
public final class PipelineGroup: Sendable {
    private struct Member {
        var pipeline: DetectionPipeline
        var outcome: DetectionPipeline.Outcome?
        var removed = false
        /// Entered when its run is started, left when it has returned.
        let running = DispatchGroup()
    }

    private struct State {
        var members: [Member] = []
        var running = false
        var stopped = false
        /// Pipelines whose `run()` has not returned, plus holds (`hold()`).
        var active = 0
    }

    private let state = Locked(State())
    private let allReturned = DispatchSemaphore(value: 0)

    /// The longest `run()` waits for a pipeline's first analysis before starting the next.
    public let startInterval: Double
    /// How long `run()` waits for a pipeline that has read no frame yet before starting the next.
    public static let quietStartWait = 0.25

    public init(startInterval: Double = 2) {
        self.startInterval = startInterval
    }

    /// Adds a pipeline; while the group runs it starts at once (stopped at once after `stop()`).
    public func add(_ pipeline: DetectionPipeline) {
        let startNow: Bool = state.withLock { state in
            state.members.append(Member(pipeline: pipeline))
            guard state.running else { return false }
            state.active += 1
            return true
        }
        if startNow { start(pipeline) }
        if state.withLock({ $0.stopped }) { pipeline.stop() }
    }

    /// `stop()` was called (a stop asked for, or a pipeline's fatal failure).
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// The pipelines that have not been removed, in the order added.
    public var pipelines: [DetectionPipeline] { state.withLock { $0.members.filter { !$0.removed }.map(\.pipeline) } }

    /// Runs every pipeline until each has returned (those added meanwhile too); their outcomes, in
    /// the order added, without those removed.
    public func run() -> [DetectionPipeline.Outcome] {
        // In a function of its own: the first pipelines are not held while run() waits, so one a
        // reload removes goes, with all it holds, at once.
        startFirstPipelines()
        release()
        allReturned.wait()
        return state.withLock { state in
            state.running = false
            return state.members.filter { !$0.removed }.map { $0.outcome ?? .stopped }
        }
    }

    /// Starts the pipelines added before `run()`, one after another (see the type's comment).
    private func startFirstPipelines() {
        let pipelines: [DetectionPipeline] = state.withLock { state in
            state.running = true
            let waiting = state.members.filter { !$0.removed }.map(\.pipeline)
            // One extra count held by run() itself until every first pipeline has started.
            state.active += waiting.count + 1
            return waiting
        }
        for (index, pipeline) in pipelines.enumerated() {
            start(pipeline)
            guard index < pipelines.count - 1, !state.withLock({ $0.stopped }) else { continue }
            let started = DispatchTime.now()
            if !pipeline.waitForFirstAnalysis(timeout: started + min(startInterval, Self.quietStartWait)),
               pipeline.session.statistics.framesRead > 0 {
                pipeline.waitForFirstAnalysis(timeout: started + startInterval)
            }
        }
    }

    private func start(_ pipeline: DetectionPipeline) {
        let running = state.withLock { $0.members.first { $0.pipeline === pipeline }?.running }
        running?.enter()
        // A thread each: `run()` blocks until its input ends.
        DispatchQueue(label: "lookout.pipeline.run.\(pipeline.configuration.camera)").async { [self] in
            defer { running?.leave() }
            let outcome = pipeline.run()
            let removed = state.withLock { state -> Bool in
                guard let index = state.members.firstIndex(where: { $0.pipeline === pipeline }) else { return true }
                state.members[index].outcome = outcome
                return state.members[index].removed
            }
            if case .failed = outcome, !removed { stop() }
            release()
        }
    }

    /// Keeps `run()` from returning while the pipelines are being changed (a reload that removes
    /// the last camera before adding the next); pair with `release()`.
    public func hold() {
        state.withLock { $0.active += 1 }
    }

    public func release() {
        let done = state.withLock { state -> Bool in
            state.active -= 1
            return state.active == 0 && state.running
        }
        if done { allReturned.signal() }
    }

    /// Stops `pipeline`, waits until its run has returned and its sinks have finished, and forgets
    /// it: its outcome is not among `run()`'s.
    public func remove(_ pipeline: DetectionPipeline) {
        let running: DispatchGroup? = state.withLock { state in
            guard let index = state.members.firstIndex(where: { $0.pipeline === pipeline }) else { return nil }
            state.members[index].removed = true
            return state.members[index].running
        }
        pipeline.stop()
        running?.wait()
        pipeline.finishSinks()
        state.withLock { $0.members.removeAll { $0.pipeline === pipeline } }
    }

    /// Stops every pipeline, from any thread, without waiting; pipelines added later stop at once.
    public func stop() {
        let pipelines = state.withLock { state -> [DetectionPipeline] in
            state.stopped = true
            return state.members.map(\.pipeline)
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
