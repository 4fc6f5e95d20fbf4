/// One kind of look at frames that a metadata output schedules: codes, faces, motion. The output
/// owns the threads, the back-pressure, the masks and zones, and the delegate; an analyzer says
/// what it can find, what it needs of a frame, and finds it. A new detector is one type that
/// conforms and one line in `MetadataOutput.makeAnalyzers`.
///
/// An analyzer is used on its lane only (`lane`): its state needs no lock.
protocol FrameAnalyzer: AnyObject {
    /// Where it runs (see `AnalyzerLane`).
    var lane: AnalyzerLane { get }

    /// The object types it can find once prepared; empty for one that only informs the others
    /// (motion).
    var objectTypes: [MetadataObjectType] { get }

    /// Loads what it needs (a model), on its lane, when the output joins a session. A failure
    /// leaves its types unavailable, and is the reason given to whoever asks for them.
    func prepare() throws(CaptureError)

    /// Whether the settings ask anything of it (by default: one of its types is wanted). A
    /// sampled lane takes frames only for wanted analyzers and runs only those; the frame lane
    /// runs every analyzer on every frame, so each sees a change of settings at once and does
    /// nothing when unwanted.
    func isWanted(by settings: MetadataOutput.Configuration) -> Bool

    /// Analyses per second of stream time it wants at most; 0 (the default) every frame its lane
    /// can take. Only a sampled lane's analyzers are asked.
    func analysisRate(_ settings: MetadataOutput.Configuration) -> Double

    /// What it needs of the frame at `time`, asked on the capture thread at the frame's
    /// reservation while its lane is idle (so its state can be read): the output asks the frame
    /// of the session with the most any analyzer needs.
    func need(at time: MediaTime, settings: MetadataOutput.Configuration) -> FrameNeed

    /// Looks at `frame`, or gives the last look's objects again when `context` says the frame
    /// has not changed, in frame pixels and before masks (the output applies those). Counts its
    /// work in `context.counters`.
    func analyse(_ frame: SampleBuffer, context: inout FrameAnalysisContext,
                 settings: MetadataOutput.Configuration) throws(CaptureError) -> [MetadataObject]

    /// Whether it follows something a late look could lose (a face in view): its lane then goes
    /// before quiet ones.
    var isFollowing: Bool { get }
}

extension FrameAnalyzer {
    func isWanted(by settings: MetadataOutput.Configuration) -> Bool {
        objectTypes.contains { settings.types.contains($0) }
    }

    func analysisRate(_ settings: MetadataOutput.Configuration) -> Double { 0 }

    func prepare() throws(CaptureError) {}

    var isFollowing: Bool { false }
}

/// Where an analyzer runs, and on which frames.
enum AnalyzerLane: Sendable {
    /// Every frame the output takes, in registration order on one serial lane of the detector
    /// pool: motion first (its verdict goes to the others), then codes. A frame is dropped as
    /// late while this lane is busy.
    case everyFrame
    /// Frames due at the analyzers' rate that find the lane free (real-time input), on a serial
    /// lane of their own: the costly looks (faces), which must never hold up the frame lane.
    case sampled
}

/// What an analyzer needs of a frame, in increasing order: the output asks the most any needs.
enum FrameNeed: Int, Comparable, Sendable {
    /// Not its pixels (it will be given the last look's results, or nothing).
    case nothing
    /// The luma plane at the size every taker accepts (half size when codes allow).
    case plane
    /// The whole luma plane (a whole search for faces).
    case wholePlane

    static func < (lhs: FrameNeed, rhs: FrameNeed) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The reservation the output answers the session with.
    var reservation: FrameReservation {
        switch self {
        case .nothing: .takenWithoutPixels
        case .plane: .taken
        case .wholePlane: .takenWhole
        }
    }
}

/// What one frame's analysis on a lane knows besides the frame: passed from analyzer to analyzer
/// in order.
struct FrameAnalysisContext {
    /// The frame differs from the last one analysed (the motion analyzer's verdict; true without it).
    var changed = true
    /// The blocks that moved, everywhere without a motion analyzer.
    var changedBlocks = ChangedBlocks.everywhere
    /// A still image (`lookout scan`), not a frame of video.
    var still = false
    /// The output's counters, for each analyzer's own.
    let counters: Locked<MetadataOutput.Statistics>
}
