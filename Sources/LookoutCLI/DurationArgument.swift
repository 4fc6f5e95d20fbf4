import ArgumentParser
import Lookout

/// A length of time on the command line: `2s`, `500ms`, `1.5` (seconds), `2m`.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible {
    var time: MediaTime

    init(seconds: Double) { time = MediaTime(seconds: seconds) }

    init?(argument: String) {
        let text = argument.lowercased()
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("", 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let value = Double(text.dropLast(unit.suffix.count)), value >= 0, value * unit.scale <= 86_400 else {
                return nil
            }
            time = MediaTime(seconds: value * unit.scale)
            return
        }
        return nil
    }

    var seconds: Double { time.seconds }

    var description: String {
        time.nanoseconds % 1_000_000_000 == 0 ? "\(time.nanoseconds / 1_000_000_000)s" : "\(Int(time.seconds * 1000))ms"
    }

    var defaultValueDescription: String { description }
}
