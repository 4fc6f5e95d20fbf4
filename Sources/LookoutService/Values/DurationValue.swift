import Lookout

/// A length of time, on the command line or in the configuration file: `2s`, `500ms`, `1.5` (seconds), `2m`, `1h`. Any finite
/// number parses (a negative one too): the option's `ValueRange` says what it allows.
public struct DurationValue: Sendable, Hashable, CustomStringConvertible {
    public var time: MediaTime

    public init(seconds: Double) { time = MediaTime(seconds: seconds) }

    public init(time: MediaTime) { self.time = time }

    public init?(argument: String) {
        let text = argument.lowercased()
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("", 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            // Beyond ±10 years cannot be a MediaTime; no option allows it anyway.
            guard let value = Double(text.dropLast(unit.suffix.count)), value.isFinite,
                  abs(value * unit.scale) <= 315_360_000 else { return nil }
            time = MediaTime(seconds: value * unit.scale)
            return
        }
        return nil
    }

    public var seconds: Double { time.seconds }

    public var description: String {
        time.nanoseconds % 1_000_000_000 == 0 ? "\(time.nanoseconds / 1_000_000_000)s" : "\(Int(time.seconds * 1000))ms"
    }



    /// A time as a range states it: `500ms`, `60s`, `24h`.
    public static func words(seconds: Double) -> String {
        if seconds >= 7200, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        return DurationValue(seconds: seconds).description
    }
}
