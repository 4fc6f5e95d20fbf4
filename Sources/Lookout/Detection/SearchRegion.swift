/// The part of a luma plane a rect of interest covers, in the plane's pixels (never empty).
struct SearchRegion {
    var pixels: (x: Int, y: Int, width: Int, height: Int)
    /// The same region as a rectangle, to test whether an object's centre lies inside.
    var rect: Rect

    init(_ roi: Rect, in image: PixelBuffer) {
        let x = Int((roi.x * Double(image.width)).rounded(.down))
        let y = Int((roi.y * Double(image.height)).rounded(.down))
        pixels = (x: x, y: y,
                  width: max(1, min(image.width - x, Int((roi.width * Double(image.width)).rounded(.up)))),
                  height: max(1, min(image.height - y, Int((roi.height * Double(image.height)).rounded(.up)))))
        rect = Rect(x: Double(pixels.x), y: Double(pixels.y), width: Double(pixels.width), height: Double(pixels.height))
    }
}
