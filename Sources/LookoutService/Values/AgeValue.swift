/// An age on the command line or in the configuration file: `7d`, `12h`, `30m`, `90s`, `3600` (seconds). Any finite number
/// parses: the option's `ValueRange` says what it allows.
public struct AgeValue: Sendable, Hashable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public init?(argument: String) {
        let text = argument.lowercased()
        let units: [(suffix: String, scale: Double)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let value = Double(text.dropLast(unit.suffix.count)), abs(value * unit.scale) <= 1e12 else { return nil }
            seconds = value * unit.scale
            return
        }
        return nil
    }

    public var description: String { seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s" }

    /// An age as a range states it: `1s`, `3650d`.
    public static func words(seconds: Double) -> String {
        seconds >= 86_400 && seconds.truncatingRemainder(dividingBy: 86_400) == 0 ? "\(Int(seconds / 86_400))d" : "\(ValueRange<Double>.words(seconds))s"
    }
}
