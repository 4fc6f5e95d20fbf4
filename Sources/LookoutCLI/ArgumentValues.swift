import ArgumentParser
import LookoutService

// The values options take are the configuration file's (LookoutService): one parser and one
// range for `--pre-roll 5s` and `pre-roll: 5s`.
typealias DurationArgument = DurationValue
typealias ByteCountArgument = ByteCountValue
typealias AgeArgument = AgeValue
typealias PixelCountArgument = PixelCountValue

extension DurationValue: ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

extension ByteCountValue: ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

extension AgeValue: ExpressibleByArgument {}

extension PixelCountValue: ExpressibleByArgument {
    public var defaultValueDescription: String { pixels == 8192 * 8192 ? "8192x8192" : description }
}
