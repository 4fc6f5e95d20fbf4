import Dispatch
import Synchronization

/// One camera or recording, analysed end to end: a session with its input and metadata output,
/// the event generator, and the sinks results go to (standard output, MQTT, hooks, snapshots, the
/// HTTP event stream). The command line builds one from its options and runs it; several can run
/// side by side.
///
/// Results are made once per analysed frame, on the pipeline's serial `queue`, as one
/// `PipelineOutput` value that every sink receives in order. The pipeline's counters and each
/// part's own section make one `StatisticsSnapshot` (`statistics`), read by the end-of-run
/// summary, `/api/status` and `/metrics` alike.
public final class DetectionPipeline: MetadataOutputObjectsDelegate, Sendable {
    public struct Configuration: Sendable {
        /// The input's name in lines ("sample.mjpeg", "-", "/dev/video0").
        public var source: String
        /// The input's short name (`camera` in lines, MQTT topics, metrics); see `CameraName`.
        public var camera: String
        public var lineFormat = LineFormat.json
        /// Standard-output lines are events (`--events changes`) rather than a line per object per frame.
        public var linesAreEvents = false
        public var eventSettings = EventSettings()
        /// How events get their ids; nil: node `lookout`, this camera, numbers from the clock.
        public var eventNumbering: EventNumbering?

        public init(source: String, camera: String? = nil) {
            self.source = source
            self.camera = camera ?? CameraName.derived(from: source)
        }
    }

    /// How a run ended.
    public enum Outcome: Sendable {
        /// A recorded input reached its end; everything was analysed.
        case inputEnded
        /// `stop()` was called.
        case stopped
        case failed(CaptureError)
    }

    public let session: CaptureSession
    public let metadataOutput: MetadataOutput
    public let configuration: Configuration
    /// Where results are made and handed to sinks, in order.
    public let queue = DispatchQueue(label: "lookout.pipeline", qos: .userInitiated)
    private let control = DispatchQueue(label: "lookout.pipeline.control")
    /// Messages for a person (camera lost and back, damaged frames); the CLI prints them unless quiet.
    private let notices: @Sendable (String) -> Void

    private struct State {
        var sinks: [any EventSink] = []
        var snapshotNamer: (any SnapshotNaming)?
        var reporters: [any StatisticsReporting] = []
        var input = InputState.starting
        var format: VideoFormatDescription?
        var failure: CaptureError?
        var endedByInput = false
        var stopRequested = false
        var startedAt: Int64?
        var finishedAt: Int64?
        var eventCounts: [String: Int] = [:]
        var isPresent = false
        var codeLatency = TimingHistogram()
        var rate = FrameRateMeter()
        var latestCodes: [MetadataObject] = []
        var latestFaces: [MetadataObject] = []
    }

    private let state = Locked(State())
    private let stopped = DispatchSemaphore(value: 0)
    /// Signalled once: at the first analysis (see `waitForFirstAnalysis`), or when the run ends.
    private let firstAnalysis = DispatchSemaphore(value: 0)
    private let firstAnalysisSignalled = Atomic<Bool>(false)
    /// Signalled once: at the first analysed frame, the input's first loss, or when the run ends
    /// (see `waitUntilInputKnown`).
    private let inputKnown = DispatchSemaphore(value: 0)
    private let inputKnownSignalled = Atomic<Bool>(false)

    /// What makes results, used on the pipeline queue (its lock is never waited for).
    private struct Results {
        var generator: EventGenerator
        var stages: EventStages
        var detectionEncoder: DetectionLineEncoder
        var pendingObjects: [MetadataObject] = []
        var sinks: [any EventSink] = [] // `state`'s, from `run()` on
    }
    private let results: Locked<Results>
    private let textEncoder = TextLineEncoder()

    public init(session: CaptureSession, metadataOutput: MetadataOutput, configuration: Configuration,
                notices: @escaping @Sendable (String) -> Void = { _ in }) {
        self.session = session
        self.metadataOutput = metadataOutput
        self.configuration = configuration
        self.notices = notices
        results = Locked(Results(
            generator: EventGenerator(settings: configuration.eventSettings),
            stages: EventStages(numbering: configuration.eventNumbering ?? EventNumbering(node: "lookout", camera: configuration.camera),
                                encoder: EventLineEncoder(source: configuration.source, camera: configuration.camera)),
            detectionEncoder: DetectionLineEncoder(source: configuration.source, camera: configuration.camera)))
    }

    /// Adds a place results go; before `run()`. Sinks get results and finish in the order they
    /// were added. A sink that names snapshots (`SnapshotNaming`) is also the events' snapshot
    /// stage (`EventStages`); one that makes events (`EventSource`) has them taken in here.
    public func addSink(_ sink: any EventSink) {
        state.withLock {
            $0.sinks.append(sink)
            if let namer = sink as? any SnapshotNaming { $0.snapshotNamer = namer }
        }
        if let source = sink as? any EventSource { source.onEvent = { [weak self] in self?.takeIn($0) } } // weak: it holds the source
    }

    /// Adds a part whose counters belong in `statistics` (an HTTP server); its section follows the
    /// sinks'.
    public func addReporter(_ reporter: any StatisticsReporting) {
        state.withLock { $0.reporters.append(reporter) }
    }

    // MARK: Running

    /// Runs until the input ends, `stop()` is called, or a fatal error; every frame captured is
    /// analysed and handed to the sinks before this returns. Call `finishSinks()` afterwards.
    public func run() -> Outcome {
        let (sinks, snapshotNamer) = state.withLock { state in
            state.startedAt = MonotonicClock.nanoseconds()
            return (state.sinks, state.snapshotNamer)
        }
        results.withLock {
            $0.sinks = sinks
            $0.stages.snapshots = snapshotNamer
        }
        // Snapshots show the frame an event was decided on: only then are pictures attached.
        if snapshotNamer != nil { metadataOutput.attachesFramePictures = true }
        state.withLock { $0.format = session.inputs.first?.knownFormat }
        metadataOutput.setMetadataObjectsDelegate(self, queue: queue)
        session.setEventHandler(queue: control) { [weak self] event in self?.handle(event) } // weak: a removed pipeline goes
        session.startRunning()
        // A stop asked for before the session ran (a signal during start-up) found nothing to
        // stop: stop it now.
        if state.withLock({ $0.stopRequested }) {
            DispatchQueue.global().async { [session] in session.stopRunning() }
        }
        stopped.wait()
        queue.sync { signalFirstAnalysis() }
        signalInputKnown()
        if case .device(.lost(_, let reason))? = state.withLock({ $0.failure }) {
            // The camera went for good: say so, and end faces and presence, as for an interruption.
            queue.sync { emitInterruption(lostReason: reason) }
        }
        return state.withLock { state in
            state.finishedAt = MonotonicClock.nanoseconds()
            if let failure = state.failure {
                state.input = .stopped
                return .failed(failure)
            }
            if state.endedByInput && !state.stopRequested {
                state.input = .ended
                return .inputEnded
            }
            state.input = .stopped
            return .stopped
        }
    }

    /// Waits until the pipeline has analysed its first frame (for faces, when it looks for them:
    /// the costliest analysis), or its run has ended, or `timeout` has passed; false then. How a
    /// group starts many cameras one after another rather than all analysing their first frame at once.
    @discardableResult
    public func waitForFirstAnalysis(timeout: DispatchTime) -> Bool {
        guard firstAnalysis.wait(timeout: timeout) == .success else { return false }
        firstAnalysis.signal() // for any other waiter
        return true
    }

    /// Waits until how the input stands is known: its first frame analysed, its first loss (a
    /// camera that cannot be opened, a network camera that does not answer), or the end of the
    /// run; false when `timeout` passed first. What a supervisor waits for before saying the
    /// service is ready.
    @discardableResult
    public func waitUntilInputKnown(timeout: DispatchTime) -> Bool {
        guard inputKnown.wait(timeout: timeout) == .success else { return false }
        inputKnown.signal() // for any other waiter
        return true
    }

    private func signalInputKnown() {
        guard !inputKnownSignalled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        inputKnown.signal()
    }

    /// Pipeline queue.
    private func signalFirstAnalysis() {
        guard !firstAnalysisSignalled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        firstAnalysis.signal()
    }

    /// Stops the run from any thread, without waiting; `run()` then returns `.stopped`.
    public func stop() {
        state.withLock { $0.stopRequested = true }
        DispatchQueue.global().async { [session] in session.stopRunning() }
    }

    /// Lets every sink deliver what it still holds (each within its own bound), in order.
    public func finishSinks() {
        for sink in state.withLock({ $0.sinks }) { sink.finish() }
    }

    /// Where the input stands now.
    public var inputState: InputState { state.withLock { $0.input } }

    /// Where the input stands and the frame rate measured over the last second (0 unless
    /// streaming): what a one-line status says, without a whole `statistics` snapshot.
    public var inputStatus: (state: InputState, frameRate: Double) {
        state.withLock { ($0.input, $0.input == .streaming ? $0.rate.framesPerSecond : 0) }
    }

    /// The newest objects: the last code analysis's codes and the last face analysis's faces.
    public var latestObjects: [MetadataObject] {
        state.withLock { $0.latestCodes + $0.latestFaces }
    }

    /// Everything counted so far by the session, the metadata output, the pipeline and its sinks.
    public var statistics: StatisticsSnapshot {
        var snapshot = StatisticsSnapshot(source: configuration.source, camera: configuration.camera)
        let capture = session.statistics
        let analysis = metadataOutput.statistics
        snapshot.framesRead = capture.framesRead
        snapshot.framesCorrupt = capture.framesCorrupt
        snapshot.framesNotDecoded = capture.framesNotDecoded
        snapshot.framesDecodedAtHalfSize = capture.framesDecodedAtHalfSize
        snapshot.picturesUnavailable = capture.picturesUnavailable
        snapshot.framesAnalysed = analysis.framesAnalysed
        snapshot.drops = analysis.drops
        snapshot.detections = analysis.objectsByType
        snapshot.objectsMasked = analysis.objectsMasked
        snapshot.faceAnalyses = analysis.faceAnalyses
        snapshot.faceFramesLate = analysis.faceFramesLate
        snapshot.framesUnchanged = analysis.framesUnchanged
        snapshot.zxingLooks = analysis.zxingLooks
        snapshot.zxingFailures = analysis.zxingFailures
        let (reporters, sinks, latency): ([any StatisticsReporting], [any EventSink], TimingHistogram) = state.withLock { state in
            snapshot.input = state.input
            snapshot.format = state.format
            snapshot.measuredFrameRate = state.input == .streaming ? state.rate.framesPerSecond : 0
            snapshot.events = state.eventCounts
            snapshot.isPresent = state.isPresent
            if let start = state.startedAt {
                snapshot.elapsedSeconds = Double((state.finishedAt ?? MonotonicClock.nanoseconds()) - start) / 1e9
            }
            return (state.reporters, state.sinks, state.codeLatency)
        }
        snapshot.timings = [.init(name: "decode", histogram: capture.decodeTimes),
                            .init(name: "codes", histogram: analysis.codeTimes),
                            .init(name: "faces", histogram: analysis.faceTimes),
                            .init(name: "code_latency", histogram: latency)]
        for part in sinks as [any StatisticsReporting] + reporters {
            if let section = part.statisticsSection(camera: configuration.camera) { snapshot.sections.append(section) }
        }
        return snapshot
    }

    // MARK: Session events (control queue)

    private func handle(_ event: CaptureSession.Event) {
        let source = configuration.source
        switch event {
        case .runtimeError(let error):
            state.withLock { if $0.failure == nil { $0.failure = error } }
            DispatchQueue.global().async { [session] in session.stopRunning() }
        case .inputDidEnd:
            state.withLock { $0.endedByInput = true }
        case .wasInterrupted(let reason):
            state.withLock { $0.input = .lost }
            signalInputKnown()
            queue.async { [self] in emitInterruption(lostReason: reason) }
            notices("\(source): camera lost (\(reason)); reconnecting")
        case .interruptionEnded(let format):
            state.withLock {
                $0.input = .streaming
                $0.format = format
                $0.rate = FrameRateMeter()
            }
            queue.async { [self] in
                let lines = configuration.lineFormat == .json ? [InterruptionLineEncoder.found(source: source, camera: configuration.camera, format: format)] : []
                deliver(PipelineOutput(lines: lines, inputChange: .found(format)))
            }
            notices("\(source): camera back, streaming \(format)")
        case .framesDamaged(let count, let reason):
            notices("\(source): \(count) damaged frames in a row (the last: \(reason)); still reading")
        case .didStopRunning:
            stopped.signal()
        }
    }

    /// Hands an event an `EventSource` made (a finished recording) to every sink, in order with
    /// the rest: its line goes to standard output whatever `--events` says (as camera lost and
    /// found lines do), and to MQTT, hooks and the event stream as events do. Any thread.
    private func takeIn(_ event: DetectionEvent) {
        queue.async { [self] in
            let emitted = results.withLock { $0.stages.emit(event, frame: nil, objects: []) }
            var output = PipelineOutput(events: [emitted])
            output.lines.append(configuration.lineFormat == .json ? emitted.line : textEncoder.encode(event))
            state.withLock { $0.eventCounts[event.kind, default: 0] += 1 }
            deliver(output)
        }
    }

    /// Pipeline queue: the camera lost line, and faces leaving and presence ending now.
    private func emitInterruption(lostReason reason: String) {
        var output = PipelineOutput(inputChange: .lost(reason: reason))
        if configuration.lineFormat == .json {
            output.lines.append(InterruptionLineEncoder.lost(source: configuration.source, camera: configuration.camera, reason: reason))
        }
        state.withLock {
            $0.latestCodes = []
            $0.latestFaces = []
        }
        emit(results.withLock { $0.generator.interrupt() }, frame: nil, into: &output)
        deliver(output)
    }

    // MARK: Results (pipeline queue)

    public func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject],
                               from connection: CaptureConnection) {
        results.withLock { $0.pendingObjects = metadataObjects }
    }

    public func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                               from connection: CaptureConnection) {
        var result = PipelineOutput(frame: frame)
        let (events, isPresent) = results.withLock { results in
            result.objects = results.pendingObjects
            results.pendingObjects = []
            if !configuration.linesAreEvents {
                for object in result.objects {
                    result.lines.append(configuration.lineFormat == .json ? results.detectionEncoder.encode(object) : textEncoder.encode(object))
                }
            }
            return (results.generator.process(result.objects, in: frame), results.generator.isPresent)
        }
        let objects = result.objects
        emit(events, frame: frame, into: &result)
        let now = MonotonicClock.nanoseconds()
        var firstFrame = false
        let sampleDue: Bool = state.withLock { state in
            if state.input == .starting {
                state.input = .streaming
                firstFrame = true
            }
            if state.format?.width == 0 { state.format?.width = frame.width; state.format?.height = frame.height }
            if frame.analysedCodes { state.latestCodes = objects }
            if frame.analysedFaces { state.latestFaces = objects }
            state.isPresent = isPresent
            return state.rate.isDue(at: now)
        }
        if sampleDue {
            let framesRead = session.statistics.framesRead
            state.withLock { $0.rate.record(framesRead, at: now) }
        }
        deliver(result)
        if firstFrame { signalInputKnown() }
        if !firstAnalysisSignalled.load(ordering: .relaxed), frame.analysedFaces || !metadataOutput.metadataObjectTypes.contains(.face) {
            signalFirstAnalysis()
        }
        if frame.analysedCodes, objects.contains(where: { $0.type.isMachineReadableCode }) {
            state.withLock { $0.codeLatency.record(since: frame.hostTime) }
        }
    }

    /// Numbers and encodes events (naming their snapshots and picturing them first) into `output`.
    private func emit(_ events: [DetectionEvent], frame: AnalysedFrame?, into output: inout PipelineOutput) {
        guard !events.isEmpty else { return }
        let objects = output.objects
        let emitted = results.withLock { results in events.map { results.stages.emit($0, frame: frame, objects: objects) } }
        output.events += emitted
        if configuration.linesAreEvents {
            for event in emitted { output.lines.append(configuration.lineFormat == .json ? event.line : textEncoder.encode(event.event)) }
        }
        state.withLock { state in
            for event in events { state.eventCounts[event.kind, default: 0] += 1 }
        }
    }

    private func deliver(_ output: PipelineOutput) {
        guard !output.lines.isEmpty || !output.events.isEmpty || output.frame != nil || output.inputChange != nil else { return }
        for sink in results.withLock({ $0.sinks }) { sink.consume(output) }
    }
}
