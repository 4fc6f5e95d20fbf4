import Dispatch
import Synchronization

/// Coordinates the flow of frames from an input to outputs (AVCaptureSession).
///
/// A capture thread reads the input, turns each frame into a luma image in a small fixed pool of
/// buffers (decoding JPEG once for every output), and offers it to each output. For real-time
/// input it never waits: outputs still busy drop the frame as late, and when every pool buffer is
/// held downstream the frame drops as out of buffers. Recorded input read as fast as possible waits
/// for the outputs instead, so every frame is analysed.
///
/// `startRunning()` and `stopRunning()` block; call them off the delegate queues.
public final class CaptureSession: Sendable {
    /// The session's graph. The capture loop reads what its outputs agreed on (`CaptureRequirements`).
    private struct Graph {
        var inputs: [CaptureInput] = []
        var outputs: [CaptureOutput] = []
        var connections: [CaptureConnection] = []
    }

    private struct Configuration {
        /// What the capture loop uses; every change to it renegotiates.
        var committed = Graph() {
            didSet { renegotiate() }
        }
        /// What the committed graph's outputs need, combined (read by the capture loop).
        var agreed = CaptureRequirements()
        /// Changes made between beginConfiguration() and commitConfiguration().
        var pending: Graph?
        var configurationDepth = 0
        var eventHandler: (@Sendable (Event) -> Void)?
        var eventQueue: DispatchQueue?
        var isRunning = false
        /// A run has ended and no other has started: a photo asked for now has no frame to come.
        var hasStopped = false

        /// The graph changes go to: the pending one inside a configuration block.
        var editable: Graph {
            get { pending ?? committed }
            set { if configurationDepth > 0 { pending = newValue } else { committed = newValue } }
        }

        /// Asks the committed graph's outputs for their requirements (their own locks are
        /// leaves: no output calls into its session while holding one).
        mutating func renegotiate() {
            agreed = CaptureRequirements(negotiating: committed.connections, generation: agreed.generation + 1)
        }
    }

    private let configuration = Locked(Configuration())
    /// `configuration.agreed.generation`, published for the capture loop: a frame reads this
    /// alone, and the agreed value only when it moved.
    private let agreedGeneration = Atomic<UInt64>(0)
    private let counters = Locked(Statistics())
    private let captureQueue = DispatchQueue(label: "lookout.capture", qos: .userInteractive)
    private let runFinished = DispatchGroup()
    private let stopRequested = Atomic<Bool>(false)
    /// The capture loop's sign of life (see `CaptureHeartbeat`).
    public let heartbeat = CaptureHeartbeat()

    /// Damaged frames in a row that make a `framesDamaged` event (and every doubling after).
    public static let damagedFramesReported = 30

    /// Luma images in flight at once across all outputs. Small on purpose: holding frames longer
    /// than this makes frames drop rather than memory grow.
    public static let imageBufferCount = 4

    /// Frame pictures (`SampleBuffer.picture`) in flight at once: a few frames being encoded or
    /// written, and the newest kept for the web view. When all are held, frames come without one.
    public static let pictureBufferCount = 6

    public init() {}

    // MARK: Configuration

    /// Starts a batch of changes that take effect together, for the next frame, at
    /// `commitConfiguration()`: a running session never sees half of them. Blocks may nest.
    public func beginConfiguration() {
        configuration.withLock { state in
            if state.configurationDepth == 0 { state.pending = state.committed }
            state.configurationDepth += 1
        }
    }

    public func commitConfiguration() {
        reconfigure { state in
            precondition(state.configurationDepth > 0, "commitConfiguration() without beginConfiguration()")
            state.configurationDepth -= 1
            if state.configurationDepth == 0, let pending = state.pending {
                state.committed = pending
                state.pending = nil
            }
        }
    }

    public var inputs: [CaptureInput] { configuration.withLock { $0.editable.inputs } }
    public var outputs: [CaptureOutput] { configuration.withLock { $0.editable.outputs } }
    public var connections: [CaptureConnection] { configuration.withLock { $0.editable.connections } }

    /// A session takes one input (one camera or one recording), changed while it is stopped.
    public func canAddInput(_ input: CaptureInput) -> Bool {
        configuration.withLock { $0.editable.inputs.isEmpty && !$0.isRunning }
    }

    public func addInput(_ input: CaptureInput) throws(CaptureError) {
        let added: Bool = reconfigure { state in
            guard state.editable.inputs.isEmpty, !state.isRunning else { return false }
            state.editable.inputs.append(input)
            state.editable.connections += state.editable.outputs.map { CaptureConnection(input: input, output: $0) }
            return true
        }
        guard added else { throw .cannotAdd("a session takes one input, added while it is stopped") }
    }

    public func removeInput(_ input: CaptureInput) {
        reconfigure { state in
            guard !state.isRunning else { return }
            state.editable.inputs.removeAll { $0 === input }
            state.editable.connections.removeAll { $0.input === input }
        }
    }

    /// An output joins one session, once; it may be added while the session runs.
    public func canAddOutput(_ output: CaptureOutput) -> Bool {
        output.session == nil
    }

    public func addOutput(_ output: CaptureOutput) throws(CaptureError) {
        guard canAddOutput(output) else { throw .cannotAdd("an output joins one session only") }
        output.session = self
        output.didJoin(self)
        reconfigure { state in
            state.editable.outputs.append(output)
            state.editable.connections += state.editable.inputs.map { CaptureConnection(input: $0, output: output) }
        }
    }

    /// Removes an output; while running, frames already handed to it are still processed.
    public func removeOutput(_ output: CaptureOutput) {
        let removed: Bool = reconfigure { state in
            guard state.editable.outputs.contains(where: { $0 === output }) else { return false }
            state.editable.outputs.removeAll { $0 === output }
            state.editable.connections.removeAll { $0.output === output }
            return true
        }
        if removed { output.session = nil }
    }

    /// What the committed graph's outputs agreed on now (what the next frame is handled by).
    var agreedRequirements: CaptureRequirements { configuration.withLock { $0.agreed } }

    /// An output's requirements changed: agree anew, for the next frame. Outputs in a pending
    /// graph are asked when it is committed.
    func renegotiate() {
        reconfigure { $0.renegotiate() }
    }

    /// Changes the configuration under its lock, and publishes the agreement's generation so that
    /// the capture loop takes the new one at its next frame.
    private func reconfigure<Result>(_ change: (inout Configuration) -> Result) -> Result {
        configuration.withLock { state in
            let result = change(&state)
            agreedGeneration.store(state.agreed.generation, ordering: .releasing)
            return result
        }
    }

    /// Where `Event`s go. The handler runs on `queue`.
    public func setEventHandler(queue: DispatchQueue, _ handler: @escaping @Sendable (Event) -> Void) {
        configuration.withLock {
            $0.eventQueue = queue
            $0.eventHandler = handler
        }
    }

    // MARK: Running

    public var isRunning: Bool { configuration.withLock { $0.isRunning } }

    /// True once a run has ended, until the next starts (false before the first).
    var hasStoppedRunning: Bool { configuration.withLock { $0.hasStopped } }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// Starts the flow of frames. Returns once the capture thread runs.
    public func startRunning() {
        let input: CaptureInput? = configuration.withLock { state in
            guard !state.isRunning, let input = state.committed.inputs.first else { return nil }
            state.isRunning = true
            state.hasStopped = false
            return input
        }
        guard let input else { return }
        stopRequested.store(false, ordering: .relaxed)
        counters.withLock { $0 = Statistics() }
        runFinished.enter()
        captureQueue.async { [self] in
            let endedByInput = captureLoop(input)
            finishRun(endedByInput: endedByInput)
        }
    }

    /// Stops the flow of frames and returns once every frame already captured has been processed
    /// and reported to the delegates.
    public func stopRunning() {
        guard isRunning else {
            runFinished.wait()
            return
        }
        stopRequested.store(true, ordering: .relaxed)
        inputs.first?.source.cancel()
        runFinished.wait()
    }

    func reportRuntimeError(_ error: CaptureError) {
        post(.runtimeError(error))
    }

    private func post(_ event: Event) {
        let (queue, handler) = configuration.withLock { ($0.eventQueue, $0.eventHandler) }
        guard let queue, let handler else { return }
        queue.async { handler(event) }
    }

    private func finishRun(endedByInput: Bool) {
        for output in configuration.withLock({ $0.committed.outputs }) { output.drain() }
        configuration.withLock {
            $0.isRunning = false
            $0.hasStopped = true
        }
        if endedByInput { post(.inputDidEnd) }
        post(.didStopRunning)
        runFinished.leave()
    }

    /// Runs until the input ends (returns true), is cancelled, or fails (returns false).
    private func captureLoop(_ input: CaptureInput) -> Bool {
        let source = input.source
        heartbeat.start(longestWait: source.longestWait)
        source.attach(heartbeat)
        defer { heartbeat.stop() }
        source.setInterruptionHandler { [weak self] interruption in
            switch interruption {
            case .lost(let reason):
                for output in self?.outputs ?? [] { output.inputWasInterrupted() }
                self?.post(.wasInterrupted(reason: reason))
            case .restored(let format): self?.post(.interruptionEnded(format))
            }
        }
        let pool = BufferPool(count: Self.imageBufferCount)
        // Allocates nothing until a picture is asked for.
        let picturePool = BufferPool(count: Self.pictureBufferCount)
        let realTime = source.isRealTime
        var decoding = FrameDecodeStep(converter: LumaConverter(pixelBudget: source.pixelBudget), pool: pool, waits: !realTime)
        var recipients = [CaptureConnection]()
        recipients.reserveCapacity(4)
        var agreed = configuration.withLock { $0.agreed }
        var damagedInARow = 0, nextDamageReport = Self.damagedFramesReported
        func countDamaged(_ reason: String) {
            damagedInARow += 1
            guard damagedInARow == nextDamageReport else { return }
            nextDamageReport *= 2
            post(.framesDamaged(count: damagedInARow, reason: reason))
        }

        while !stopRequested.load(ordering: .relaxed) {
            let frame: SourceFrame
            var received: Int64 = 0
            do {
                guard let next = try source.nextFrame() else {
                    return !stopRequested.load(ordering: .relaxed)
                }
                frame = next
                received = MonotonicClock.nanoseconds()
                heartbeat.beat(at: received)
            } catch {
                post(.runtimeError(error))
                return false
            }
            counters.withLock { $0.framesRead += 1 }
            // What the committed graph's outputs agreed on, taken anew only when it changed:
            // configuration blocks and settings apply between frames.
            if agreedGeneration.load(ordering: .acquiring) != agreed.generation {
                agreed = configuration.withLock { $0.agreed }
            }
            let connections = agreed.connections

            if frame.framesLostBefore > 0 {
                let lost = FrameDrop(reason: .discontinuity, firstSequence: frame.sequence - UInt64(frame.framesLostBefore),
                                     presentationTime: frame.presentationTime, count: frame.framesLostBefore)
                for connection in connections where connection.isEnabled { connection.output.dropFrame(lost, from: connection) }
            }
            func drop(_ reason: DropReason, to connection: CaptureConnection, detail: String? = nil) {
                guard connection.isEnabled else { return }
                connection.output.dropFrame(FrameDrop(reason: reason, firstSequence: frame.sequence,
                                                      presentationTime: frame.presentationTime, detail: detail),
                                            from: connection)
            }
            if case .corrupt(let reason) = frame.payload {
                counters.withLock { $0.framesCorrupt += 1 }
                countDamaged(reason)
                for connection in connections { drop(.corrupt, to: connection, detail: reason) }
                continue
            }

            // Outputs that keep frames as sent (recordings) take them before any decoding.
            for connection in agreed.sourceFrameTakers where connection.isEnabled {
                connection.output.deliverSourceFrame(frame, pictures: picturePool, wait: !realTime)
            }

            // Offer the frame: outputs still busy with an earlier frame drop it as late. What the
            // frame must be is what every output taking it agreed to need.
            recipients.removeAll(keepingCapacity: true)
            var frameNeeds = OutputRequirements.unconstrained
            var pixelsWanted = false
            for taker in agreed.frameTakers where taker.connection.isEnabled {
                switch taker.connection.output.reserveFrame(at: frame.presentationTime, wait: !realTime) {
                case .declined:
                    drop(.late, to: taker.connection)
                case .taken:
                    recipients.append(taker.connection)
                    frameNeeds.combine(taker.requirements)
                    pixelsWanted = true
                case .takenWhole:
                    recipients.append(taker.connection)
                    frameNeeds.combine(taker.requirements.wholePlane)
                    pixelsWanted = true
                case .takenWithoutPixels:
                    recipients.append(taker.connection)
                    frameNeeds.combine(taker.requirements)
                }
            }
            guard !recipients.isEmpty else { continue }

            // Decode once, for every output that takes the frame, at the smallest size they all accept.
            let result: LumaConverter.Result
            let decodeStart = MonotonicClock.nanoseconds()
            do {
                let decoded = try decoding.decode(frame.payload, format: frame.format, needs: frameNeeds, pixelsWanted: pixelsWanted)
                result = decoded.result
                if decoded.isLastImage { counters.withLock { $0.framesNotDecoded += 1 } }
                if decoded.isHalved { counters.withLock { $0.framesDecodedAtHalfSize += 1 } }
            } catch {
                counters.withLock { $0.framesCorrupt += 1 }
                countDamaged(error.description)
                decoding.forget()
                for connection in recipients { connection.output.cancelReservation() }
                for connection in connections { drop(.corrupt, to: connection, detail: error.description) }
                continue
            }
            counters.withLock { $0.decodeTimes.record(since: decodeStart) }
            (damagedInARow, nextDamageReport) = (0, Self.damagedFramesReported)
            guard case .image(let image, let width, let height) = result else {
                for connection in recipients {
                    connection.output.cancelReservation()
                    drop(.outOfBuffers, to: connection)
                }
                continue
            }
            var format = frame.format
            format.width = width
            format.height = height
            var picture: FramePicture?
            if frameNeeds.wantsPicture {
                picture = Self.picture(of: frame, format: format, pool: picturePool)
                counters.withLock { if picture == nil { $0.picturesUnavailable += 1 } else { $0.picturesCopied += 1 } }
            }
            let sample = SampleBuffer(sequence: frame.sequence, presentationTime: frame.presentationTime,
                                      wallClockTime: frame.wallClockTime, formatDescription: format,
                                      imageBuffer: image, hostTime: received, picture: picture)
            counters.withLock { $0.framesDelivered += 1 }
            for connection in recipients { connection.output.deliver(sample, from: connection) }
        }
        return false
    }

    /// A copy of the frame as sent (JPEG bytes, or the raw planes), in a picture buffer.
    private static func picture(of frame: SourceFrame, format: VideoFormatDescription, pool: BufferPool) -> FramePicture? {
        switch frame.payload {
        case .jpeg(let bytes):
            return FramePicture.copy(bytes, width: format.width, height: format.height, pixelFormat: .mjpeg,
                                     bytesPerRow: 0, into: pool)
        case .raw(let bytes, let bytesPerRow):
            return FramePicture.copy(bytes, width: format.width, height: format.height, pixelFormat: format.pixelFormat,
                                     bytesPerRow: bytesPerRow, into: pool)
        case .corrupt:
            return nil
        }
    }
}
