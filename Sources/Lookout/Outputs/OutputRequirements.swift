/// What an output needs of the frames it takes. Each output states its own (`CaptureOutput.requirements`,
/// from its settings); its session combines them once, when the graph is committed or an output
/// says its settings changed (`CaptureOutput.requirementsDidChange()`), as GStreamer negotiates
/// caps, and the capture loop reads the agreed value instead of asking every output every frame.
public struct OutputRequirements: Sendable, Equatable {
    /// Takes frames as the input sent them and never looks at their pixels (`MovieFileOutput`):
    /// the session hands it every frame through `deliverSourceFrame` before decoding, and never
    /// reserves or decodes a frame for it.
    public var takesSourceFrames: Bool
    /// Wants the picture of each frame it takes (`SampleBuffer.picture`): the session copies one
    /// only when some output taking the frame wants it, so pictures cost nothing while nobody asks.
    public var wantsPicture: Bool
    /// Grey levels per 16x16 block by which a frame may differ from the previous one and still be
    /// given that frame's image instead of its own (0: never). The session skips decoding such
    /// frames when every output taking the frame allows it.
    public var unchangedFrameTolerance: Int
    /// The narrowest frame whose luma plane may come at half size (0: any); nil takes every plane
    /// whole. The session decodes a JPEG frame at the smallest size every output taking it
    /// accepts, so that nothing decodes pixels only to average them away; a reservation may still
    /// ask for one frame whole (`FrameReservation.takenWhole`).
    public var halfPlaneMinimumWidth: Int?

    public init(takesSourceFrames: Bool = false, wantsPicture: Bool = false, unchangedFrameTolerance: Int = 0,
                halfPlaneMinimumWidth: Int? = nil) {
        self.takesSourceFrames = takesSourceFrames
        self.wantsPicture = wantsPicture
        self.unchangedFrameTolerance = unchangedFrameTolerance
        self.halfPlaneMinimumWidth = halfPlaneMinimumWidth
    }

    /// What no output asks: the start of `combine(_:)`, never an output's own.
    static let unconstrained = OutputRequirements(unchangedFrameTolerance: .max, halfPlaneMinimumWidth: 0)

    /// Adds what `other` needs of the same frame: a picture when either wants one, the smaller
    /// tolerance, the larger plane.
    mutating func combine(_ other: OutputRequirements) {
        wantsPicture = wantsPicture || other.wantsPicture
        unchangedFrameTolerance = min(unchangedFrameTolerance, other.unchangedFrameTolerance)
        halfPlaneMinimumWidth = other.halfPlaneMinimumWidth.flatMap { theirs in halfPlaneMinimumWidth.map { max($0, theirs) } }
    }

    /// Whether a frame `width` pixels wide may be decoded at half size.
    func acceptsHalfPlane(frameWidth width: Int) -> Bool {
        halfPlaneMinimumWidth.map { width >= $0 } ?? false
    }

    /// The same, for a frame that must come whole.
    var wholePlane: OutputRequirements {
        var whole = self
        whole.halfPlaneMinimumWidth = nil
        return whole
    }
}
