/// How long a stage took, frame after frame: a fixed histogram (0.1 ms buckets up to 500 ms, one
/// allocation when made) with the count, mean, percentiles and maximum the `--stats` line reports.
public struct TimingHistogram: Sendable, Equatable {
    private static let bucketNanoseconds: Int64 = 100_000
    private static let bucketCount = 5000

    private var buckets: [UInt32]
    public private(set) var count = 0
    public private(set) var totalNanoseconds: Int64 = 0
    public private(set) var maximumNanoseconds: Int64 = 0

    public init() {
        buckets = Array(repeating: 0, count: Self.bucketCount + 1)
    }

    public mutating func record(nanoseconds: Int64) {
        let value = max(0, nanoseconds)
        buckets[min(Int(value / Self.bucketNanoseconds), Self.bucketCount)] &+= 1
        count += 1
        totalNanoseconds += value
        maximumNanoseconds = max(maximumNanoseconds, value)
    }

    /// Records the time from `start` (MonotonicClock nanoseconds) to now.
    public mutating func record(since start: Int64) {
        record(nanoseconds: MonotonicClock.nanoseconds() - start)
    }

    /// Each non-empty bucket: its lower edge in nanoseconds and how many samples fell in it (for
    /// exporters that keep their own buckets, such as Prometheus histograms).
    public func forEachBucket(_ body: (_ lowerNanoseconds: Int64, _ count: Int) -> Void) {
        for (index, n) in buckets.enumerated() where n > 0 {
            body(Int64(index) * Self.bucketNanoseconds, Int(n))
        }
    }

    /// The bucket width: samples are known to this precision.
    public static var resolutionNanoseconds: Int64 { bucketNanoseconds }

    public var meanMilliseconds: Double { count == 0 ? 0 : Double(totalNanoseconds) / Double(count) / 1e6 }
    public var maximumMilliseconds: Double { Double(maximumNanoseconds) / 1e6 }

    /// The value under which `fraction` (0...1) of the samples lie, to the bucket's upper edge
    /// (0.1 ms), never above the maximum.
    public func percentileMilliseconds(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, n) in buckets.enumerated() {
            seen += Int(n)
            if seen >= rank {
                let edge = Int64(index + 1) * Self.bucketNanoseconds
                return Double(min(edge, maximumNanoseconds)) / 1e6
            }
        }
        return maximumMilliseconds
    }
}
