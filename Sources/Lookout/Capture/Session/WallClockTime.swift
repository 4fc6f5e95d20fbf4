#if canImport(Glibc)
import Glibc
#endif

/// A moment on the real-time clock (CLOCK_REALTIME), for the wall-clock time of a frame.
public struct WallClockTime: Comparable, Hashable, Sendable {
    public var seconds: Int64
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func now() -> WallClockTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return WallClockTime(seconds: Int64(now.tv_sec), nanoseconds: Int32(now.tv_nsec))
    }

    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// RFC 3339 in UTC with milliseconds: `2026-11-22T09:15:02.125Z`.
    public var rfc3339: String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2)
            + "T" + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2)
            + "." + pad(nanoseconds / 1_000_000, 3) + "Z"
    }
}
