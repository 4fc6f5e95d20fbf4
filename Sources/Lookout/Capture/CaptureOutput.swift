/// A destination for a session's frames (AVCaptureOutput). Use `VideoDataOutput` for frames or
/// `MetadataOutput` for detected codes and faces.
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

    // MARK: The contract with the session's capture loop (capture thread only)

    /// Claims the output for one frame. Returns false when the output is still busy and discards
    /// late frames (real-time input); with `wait`, blocks until it is free instead.
    func reserveFrame(wait: Bool) -> Bool { true }

    /// Gives back a reservation that will not be followed by `deliver` (no buffer, corrupt frame).
    func cancelReservation() {}

    /// Grey levels per 16x16 block by which a frame may differ from the previous one and still be
    /// given that frame's image instead of its own (0: never). The session skips decoding such
    /// frames when every output taking the frame allows it.
    var unchangedFrameTolerance: Int { 0 }

    /// How much smaller than the reserved `width`x`height` frame at `time` the luma plane may be
    /// for this output: 1 (the frame's size), or 2 (half). The session decodes a JPEG frame at the
    /// smallest size every output taking it accepts, so that nothing decodes pixels only to
    /// average them away.
    func lumaReduction(forFrameWidth width: Int, height: Int, at time: MediaTime) -> Int { 1 }

    /// Whether this output wants the reserved frame's picture (`SampleBuffer.picture`): the session
    /// copies it only when some output taking the frame says yes, so pictures cost nothing while
    /// nobody asks.
    var wantsPicture: Bool { false }

    /// True for an output that keeps frames as the input sent them and never looks at their
    /// pixels (`MovieFileOutput`): the session hands it every frame through `deliverSourceFrame`
    /// before decoding, and never reserves or decodes a frame for it.
    var takesSourceFrames: Bool { false }

    /// Hands over a frame as the input sent it (for `takesSourceFrames` outputs); its bytes are
    /// valid only during the call. `pictures` lends buffers for a copy; with `wait` (a file read as
    /// fast as possible) the output may block until it can keep the frame, otherwise never.
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
