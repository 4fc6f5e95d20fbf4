/// What detection options default to when not given: still images (`scan`) can afford a longer
/// look at each picture than live video (`run`), which must keep up with the frame rate.
enum DetectionProfile {
    case stills
    case video

    /// Milliseconds of the second look at a picture ZBar read nothing in.
    var codeBudget: Double {
        switch self {
        case .stills: 1000
        case .video: 15
        }
    }
}
