/// A destination for a session's frames (AVCaptureOutput). Use `VideoDataOutput` for frames or
/// `MetadataOutput` for detected codes and faces.
// @unchecked: non-final (the outputs); `session` is set by addOutput and removeOutput, calls made from one thread.
public class CaptureOutput: @unchecked Sendable {
    /// Set while the output belongs to a session.
    weak var session: CaptureSession?

    init() {}

    /// The connection feeding this output, while it is in a session with an input.
    public var connection: CaptureConnection? {
        session?.connections.first { $0.output === self }
    }

    /// Frames this output did not get, by reason.
    public var droppedFrames: DropCounts { drops.counts }

    let drops = DropCoalescer()

    /// What this output needs of the frames it takes, from its settings now. Its session asks
    /// when it negotiates: when the output joins or leaves, at `commitConfiguration()`, and when the
    /// output calls `requirementsDidChange()`. Never asked per frame.
    public var requirements: OutputRequirements { OutputRequirements() }

    /// Tells the output's session that `requirements` changed (a setting did): the session
    /// renegotiates, and the next frame is handled by the new agreement.
    func requirementsDidChange() {
        session?.renegotiate()
    }

    // MARK: The contract with the session's capture loop (capture thread only)

    /// Claims the output for the frame at `time`. Declines when the output is still busy and
    /// discards late frames (real-time input); with `wait`, blocks until it is free instead.
    func reserveFrame(at time: MediaTime, wait: Bool) -> FrameReservation { .taken }

    /// Gives back a reservation that will not be followed by `deliver` (no buffer, corrupt frame).
    func cancelReservation() {}

    /// Hands over a frame as the input sent it (for outputs whose requirements take source
    /// frames); its bytes are valid only during the call. `pictures` lends buffers for a copy;
    /// with `wait` (a file read as fast as possible) the output may block until it can keep the
    /// frame, otherwise never.
    func deliverSourceFrame(_ frame: SourceFrame, pictures: BufferPool, wait: Bool) {}

    /// The input lost its frames (a camera unplugged); frames may come again later, on a clock
    /// started afresh. Called on the capture thread.
    func inputWasInterrupted() {}

    /// Hands over a reserved frame; must not block.
    func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {}

    /// Reports a frame this output did not get.
    func dropFrame(_ drop: FrameDrop, from connection: CaptureConnection) {
        _ = drops.record(drop)
    }

    /// Called when the output joins a session, before it receives frames.
    func didJoin(_ session: CaptureSession) {}

    /// Blocks until every frame handed over has been processed and reported to the delegate.
    /// Called off the delegate queues, after the capture loop has stopped.
    func drain() {}
}
