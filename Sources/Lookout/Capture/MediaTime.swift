/// A presentation time on the stream's own clock, in nanoseconds (the role CMTime plays).
///
/// For recorded input it starts at zero with the first frame; for cameras it is the driver's
/// monotonic buffer timestamp.
public struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    public static let zero = MediaTime(nanoseconds: 0)

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public var description: String { "\(seconds.formatted(maxFractionDigits: 6)) s" }
}
