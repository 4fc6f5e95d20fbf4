import Dispatch

extension DispatchTime {
    /// Now plus `seconds`, clamped to 0...86400 (NaN is 0): `DispatchTime.now() + seconds` traps
    /// on values it cannot hold, and a timeout given through an API must never do that.
    public static func fromNow(seconds: Double) -> DispatchTime {
        let bounded = seconds > 0 ? min(seconds, 86_400) : 0
        return .now() + bounded
    }
}
