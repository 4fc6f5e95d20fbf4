/// A presentation time on the stream's own clock, in nanoseconds (the role CMTime plays).
///
/// For recorded input it starts at zero with the first frame; for cameras it is the driver's
/// monotonic buffer timestamp.
public struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Rounds to the nanosecond; times beyond what 64 bits of nanoseconds hold (some 292 years)
    /// are clamped, and NaN is zero: a time never traps.
    public init(seconds: Double) {
        let nanoseconds = (seconds * 1e9).rounded()
        if nanoseconds.isNaN {
            self.nanoseconds = 0
        } else if nanoseconds >= 9.2e18 {
            self.nanoseconds = .max
        } else if nanoseconds <= -9.2e18 {
            self.nanoseconds = .min
        } else {
            self.nanoseconds = Int64(nanoseconds)
        }
    }

    public static let zero = MediaTime(nanoseconds: 0)

    /// Sums and differences wrap rather than trap: a time never traps.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public var description: String { "\(seconds.formatted(maxFractionDigits: 6)) s" }
}
