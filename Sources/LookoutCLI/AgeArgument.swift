import ArgumentParser

/// An age on the command line: `7d`, `12h`, `30m`, `90s`, `3600` (seconds).
struct AgeArgument: ExpressibleByArgument, CustomStringConvertible {
    var seconds: Double

    init?(argument: String) {
        let text = argument.lowercased()
        let units: [(suffix: String, scale: Double)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let value = Double(text.dropLast(unit.suffix.count)), value.isFinite, value > 0 else { return nil }
            seconds = value * unit.scale
            return
        }
        return nil
    }

    var description: String { seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s" }
}
