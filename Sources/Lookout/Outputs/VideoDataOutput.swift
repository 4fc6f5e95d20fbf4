import Dispatch
import Synchronization

/// Receives a session's frames on the delegate's queue (AVCaptureVideoDataOutputSampleBufferDelegate).
public protocol VideoDataOutputSampleBufferDelegate: AnyObject, Sendable {
    /// A new frame. The sample buffer's image lives in a small fixed pool: return promptly and do
    /// not keep the buffer beyond what you need, or later frames drop as out of buffers.
    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer,
                       from connection: CaptureConnection)
    /// Frames this output did not get. While the queue is busy, reports for the same reason are
    /// merged into one with a count.
    func captureOutput(_ output: VideoDataOutput, didDrop drop: FrameDrop, from connection: CaptureConnection)
}

extension VideoDataOutputSampleBufferDelegate {
    public func captureOutput(_ output: VideoDataOutput, didDrop drop: FrameDrop, from connection: CaptureConnection) {}
}

/// Delivers frames to a delegate on a serial queue (AVCaptureVideoDataOutput).
///
/// With `alwaysDiscardsLateVideoFrames` on (the default), a frame that arrives while the delegate
/// is still busy with the previous one is dropped as late and reported, so a slow delegate never
/// delays capture or queues up frames. With it off, frames queue up to the size of the buffer
/// pool, then drop as out of buffers. For recorded input read as fast as possible, the session
/// waits for the delegate instead of dropping.
// @unchecked: restates its base class's; every field of its own is a lock, a semaphore or an atomic.
public final class VideoDataOutput: CaptureOutput, @unchecked Sendable {
    private struct Configuration {
        weak var delegate: (any VideoDataOutputSampleBufferDelegate)?
        var queue: DispatchQueue?
        var discardsLateFrames = true
    }

    private let configuration = Locked(Configuration())
    private let idle = DispatchSemaphore(value: 1)
    /// The frame's reservation took `idle` (set by `reserveFrame`, read by `deliver` or
    /// `cancelReservation`: the capture loop's calls in turn; atomic, so the type says so).
    private let reservationHoldsGate = Atomic(false)
    private let delivered = Atomic<Int>(0)

    public override init() {}

    /// Sets the delegate and the serial queue its callbacks run on. Pass nil for both to stop.
    public func setSampleBufferDelegate(_ delegate: (any VideoDataOutputSampleBufferDelegate)?, queue: DispatchQueue?) {
        precondition((delegate == nil) == (queue == nil), "a sample buffer delegate needs a queue, and only then")
        configuration.withLock {
            $0.delegate = delegate
            $0.queue = queue
        }
    }

    public var sampleBufferDelegate: (any VideoDataOutputSampleBufferDelegate)? {
        configuration.withLock { $0.delegate }
    }

    public var sampleBufferCallbackQueue: DispatchQueue? {
        configuration.withLock { $0.queue }
    }

    public var alwaysDiscardsLateVideoFrames: Bool {
        get { configuration.withLock { $0.discardsLateFrames } }
        set { configuration.withLock { $0.discardsLateFrames = newValue } }
    }

    /// Frames handed to the delegate so far.
    public var deliveredFrameCount: Int { delivered.load(ordering: .relaxed) }

    override func reserveFrame(at time: MediaTime, wait: Bool) -> FrameReservation {
        let discards = alwaysDiscardsLateVideoFrames
        let holdsGate = discards || wait
        reservationHoldsGate.store(holdsGate, ordering: .relaxed)
        guard holdsGate else { return .taken }
        return idle.wait(timeout: wait ? .distantFuture : .now()) == .success ? .taken : .declined
    }

    override func cancelReservation() {
        if reservationHoldsGate.load(ordering: .relaxed) { idle.signal() }
    }

    override func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let (delegate, queue) = configuration.withLock { ($0.delegate, $0.queue) }
        let holdsGate = reservationHoldsGate.load(ordering: .relaxed)
        guard let queue else {
            if holdsGate { idle.signal() }
            return
        }
        delivered.add(1, ordering: .relaxed)
        queue.async { [self] in
            delegate?.captureOutput(self, didOutput: sampleBuffer, from: connection)
            if holdsGate { idle.signal() }
        }
    }

    override func dropFrame(_ drop: FrameDrop, from connection: CaptureConnection) {
        guard drops.record(drop), let queue = sampleBufferCallbackQueue else { return }
        queue.async { [self] in
            let delegate = sampleBufferDelegate
            for report in drops.takePending() {
                delegate?.captureOutput(self, didDrop: report, from: connection)
            }
        }
    }

    override func drain() {
        sampleBufferCallbackQueue?.sync {}
    }
}
