/// What detection options default to when not given: still images (`scan`) can afford a longer
/// look at each picture than live video (`run`), which must keep up with the frame rate.
import Lookout

public enum DetectionProfile: Sendable {
    case stills
    case video

    /// Frames wider than this are shrunk before face detection. Phone photographs hold faces of
    /// a few dozen pixels at 640 px; 1280 px found 52 of the corpus's 70 faces where 640 found 48.
    public var faceWidth: Int {
        switch self {
        case .stills: 1280
        case .video: 640
        }
    }

    public var codeResolution: CodeScanResolution { self == .stills ? .full : .automatic }

    /// The cascade's window growth: finer for stills, the peer's (facedetect) for video.
    public var scaleFactor: Double { self == .stills ? 1.1 : 1.25 }

    /// The verifier's own whole-picture search joined to the first cascade's: faces either misses
    /// alone (recall 0.833 -> 0.852 on real photographs, at the same precision), for a second
    /// full search. Video sees a person again and again; a picture, once.
    public var faceJoin: Bool { self == .stills }

    /// Whole-frame code scans a second: video reads windows around the codes it follows in
    /// between (a code appearing anywhere is read within 100 ms at 30 fps); a picture is read whole.
    public var codeScanRate: Double { self == .stills ? 0 : MetadataOutput.videoCodeWholeFrameRate }

    /// Seconds between whole searches for faces: video looks around the faces it follows in
    /// between (a third of the work on the bench clip, the same faces found per analysis on the
    /// tracking clips); a picture has no face to follow.
    public var faceFullSearch: Double { self == .stills ? 0 : 1 }

    /// Analyses a face must be found in before it is reported: one picture has one.
    public var faceConfirmations: Int { self == .stills ? 1 : 2 }

    /// Milliseconds of the second look at a picture ZBar read nothing in, counted from the start
    /// of ZBar's first pass. On a 12-megapixel phone photograph ZBar's pass takes about half a
    /// second and zxing-cpp as long again: 1000 ms cut such reads short.
    public var codeBudget: Double {
        switch self {
        case .stills: 3000
        case .video: 15
        }
    }

    /// A default as the help and the reference write it: a number as a range writes it, a choice
    /// by its name.
    public static func words(_ value: some Sendable) -> String {
        switch value {
        case let number as Double: ValueRange<Double>.words(number)
        case let resolution as CodeScanResolution: resolution.rawValue
        default: "\(value)"
        }
    }

    /// "7.5 (0 for scan)": run's default, which the configuration file sets, with scan's beside it.
    public static func runThenScan<Value: Sendable>(_ value: (DetectionProfile) -> Value,
                                                   words: (Value) -> String = { DetectionProfile.words($0) }) -> String {
        "\(words(value(.video))) (\(words(value(.stills))) for scan)"
    }
}
