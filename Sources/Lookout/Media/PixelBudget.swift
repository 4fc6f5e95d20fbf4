/// The largest picture Lookout decodes or allocates: frames, still images and the copies made of
/// them. A stream, an image or a camera that declares more is refused before any memory is taken
/// for it (a 40 KB PNG can declare 30000x30000 pixels, a Y4M header 16384x16384), so what any
/// input can make Lookout allocate is bounded by this budget (see docs/command-line.md, "Limits").
public struct PixelBudget: Sendable, Equatable, CustomStringConvertible {
    /// Pixels in one picture, at most.
    public var maximumPixels: Int
    /// How refusals name the budget: "the pixel budget" unless the program names its own setting
    /// (the command line: `--max-pixels`).
    public var settingName: String

    /// 8192x8192: an 8K camera's frames (7680x4320) and phone photos up to 64 megapixels.
    public static let standard = PixelBudget(maximumPixels: 8192 * 8192)

    /// Budgets below this would refuse ordinary frames; above it, OpenCV refuses images itself.
    public static let allowedRange: ClosedRange<Int> = (64 * 64)...(1 << 30)

    public init(maximumPixels: Int, settingName: String = "the pixel budget") {
        self.maximumPixels = maximumPixels
        self.settingName = settingName
    }

    /// True when a `width` x `height` picture is within the budget (sizes above zero).
    public func allows(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0 else { return false }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && pixels <= maximumPixels
    }

    /// Why a picture is refused, for messages: "declares 30000x30000 pixels, more than the
    /// 67108864 that the pixel budget allows".
    public func refusal(width: Int, height: Int) -> String {
        guard width > 0, height > 0 else { return "it declares \(width)x\(height) pixels, no picture at all" }
        return "it declares \(width)x\(height) pixels, more than the \(maximumPixels) that \(settingName) allows"
    }

    /// Said after an input's name when its pictures are over the budget ("clip.y4m: over the
    /// pixel budget: 1280x720 is more than the 307200 pixels the pixel budget allows").
    public func exceeded(width: Int, height: Int) -> String {
        "over the pixel budget: \(width)x\(height) is more than the \(maximumPixels) pixels \(settingName) allows"
    }

    /// The refusal of pictures whose size is not known: "more than the 307200 pixels the pixel
    /// budget allows".
    public var allowance: String { "the \(maximumPixels) pixels \(settingName) allows" }

    public var description: String { "\(maximumPixels) pixels" }
}
