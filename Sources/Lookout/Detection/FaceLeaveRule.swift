/// When a face no longer found has left: the one rule the face tracker (which ends the face's ID)
/// and the visit tracker (which reports `face_leave`) both apply, so that a face keeping its ID
/// never enters twice in one visit.
///
/// A fixed time alone breaks tracks under load: when frames are dropped late, face analyses come
/// a second or more apart, and one missed analysis is already longer than the delay. So a face has
/// left once it has been missed for longer than `delay` in at least `missedAnalyses` analyses in a
/// row; and, whatever the count, once it has been missed for longer than `maximumAbsence`. On a
/// stream analysed 10 times a second the count is reached long before the delay, and the delay
/// alone decides, as it always did.
public struct FaceLeaveRule: Sendable, Equatable {
    /// The face leave delay (`--face-leave`).
    public var delay: MediaTime
    /// Analyses in a row that must miss the face.
    public var missedAnalyses: Int
    /// Missed for this long, the face has left however few analyses there were.
    public var maximumAbsence: MediaTime

    /// Analyses in a row that must miss a face by default: a frontal cascade misses a turning or
    /// moving face on one or two analyses in a row (the tracking clips, docs/accuracy.md).
    public static let defaultMissedAnalyses = 3
    /// `maximumAbsence` by default, in leave delays.
    public static let defaultMaximumAbsenceDelays: Int64 = 3

    public init(delay: MediaTime, missedAnalyses: Int = Self.defaultMissedAnalyses, maximumAbsence: MediaTime? = nil) {
        self.delay = delay
        self.missedAnalyses = max(1, missedAnalyses)
        let (longest, overflow) = delay.nanoseconds.multipliedReportingOverflow(by: Self.defaultMaximumAbsenceDelays)
        self.maximumAbsence = max(delay, maximumAbsence ?? MediaTime(nanoseconds: overflow ? .max : longest))
    }

    /// Whether a face last found `absence` ago, and missed by the last `missed` analyses, has left.
    func hasLeft(absentFor absence: Int64, missed: Int) -> Bool {
        absence > maximumAbsence.nanoseconds || (absence > delay.nanoseconds && missed >= missedAnalyses)
    }
}
