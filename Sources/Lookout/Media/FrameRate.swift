/// The frame rates Lookout takes from stream headers, cameras and options.
///
/// Checked where a rate enters, before any arithmetic: a header's `F1e-308:1` or a driver's
/// interval of 0 would otherwise make frame durations infinite, and converting those traps.
public enum FrameRate {
    /// From one frame in 1000 seconds to 1000 frames a second.
    public static let validRange: ClosedRange<Double> = 0.001...1000

    /// `numerator / denominator` frames per second, when both are above zero and the rate is in
    /// `validRange`; nil otherwise.
    public static func checked(numerator: Double, denominator: Double) -> Double? {
        guard numerator > 0, denominator > 0, numerator.isFinite, denominator.isFinite else { return nil }
        let rate = numerator / denominator
        return validRange.contains(rate) ? rate : nil
    }

    /// How a rate out of range is described in messages.
    public static let rangeDescription = "between 0.001 and 1000 frames per second"
}
