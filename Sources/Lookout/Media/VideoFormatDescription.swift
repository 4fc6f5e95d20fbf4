/// What a frame is: its size, its layout as delivered, and the nominal rate of its stream
/// (the analogue of CMVideoFormatDescription).
public struct VideoFormatDescription: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    /// Nominal frames per second of the stream, when the container or device states one.
    public var frameRate: Double?

    public init(width: Int, height: Int, pixelFormat: PixelFormat, frameRate: Double? = nil) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
    }

    public var description: String {
        var text = "\(width)x\(height) \(pixelFormat)"
        if let frameRate { text += " @ \(frameRate.formatted(maxFractionDigits: 3)) fps" }
        return text
    }
}

extension Double {
    /// Short decimal formatting without Foundation: "29.97", "30", "0.5".
    func formatted(maxFractionDigits: Int) -> String {
        var scale = 1.0
        for _ in 0..<maxFractionDigits { scale *= 10 }
        let rounded = (self * scale).rounded() / scale
        if rounded == rounded.rounded(.towardZero), abs(rounded) < 1e15 {
            return String(Int64(rounded))
        }
        return String(rounded)
    }
}
