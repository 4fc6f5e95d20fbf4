/// What a session's outputs agreed on: their connections sorted by how they take frames, each with
/// the output's requirements. Made under the session's lock whenever the committed graph changes or
/// an output's requirements do; the capture loop keeps a copy and takes a new one only when
/// `generation` moves, so a frame costs one atomic load, not a question to every output.
struct CaptureRequirements {
    /// An output that takes decoded frames, with what it needs of them.
    struct FrameTaker {
        let connection: CaptureConnection
        let requirements: OutputRequirements
    }

    /// Every connection, in the order outputs joined (drops reach them all).
    private(set) var connections: [CaptureConnection] = []
    /// Outputs that take frames as the input sent them, before decoding.
    private(set) var sourceFrameTakers: [CaptureConnection] = []
    /// Outputs that reserve decoded frames.
    private(set) var frameTakers: [FrameTaker] = []
    /// Counts negotiations; 0 before the first.
    private(set) var generation: UInt64 = 0

    init() {}

    /// Asks each connection's output once for its requirements.
    init(negotiating connections: [CaptureConnection], generation: UInt64) {
        self.connections = connections
        self.generation = generation
        for connection in connections {
            let requirements = connection.output.requirements
            if requirements.takesSourceFrames {
                sourceFrameTakers.append(connection)
            } else {
                frameTakers.append(FrameTaker(connection: connection, requirements: requirements))
            }
        }
    }
}
