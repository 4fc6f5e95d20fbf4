/// A number of pixels on the command line or in the configuration file: `67108864`, or `8192x8192` for that many.
public struct PixelCountValue: Sendable, Hashable, CustomStringConvertible {
    public var pixels: Int

    public init(_ pixels: Int) { self.pixels = pixels }

    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let count = Int(parts[0]), count > 0 else { return nil }
            pixels = count
        case 2:
            guard let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
            let (count, overflow) = width.multipliedReportingOverflow(by: height)
            // Beyond Int: certainly beyond the allowed range, which validate() then names.
            pixels = overflow ? .max : count
        default:
            return nil
        }
    }

    public var description: String { String(pixels) }

}
