/// A rectangle with a top-left origin, in normalized (0...1) or pixel units depending on use.
public struct Rect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A part of the frame given in fractions (a rect of interest): nil unless it is not empty and
    /// lies within the frame, allowing for the rounding of fractions written in decimal.
    public init?(fractionsOfFrame x: Double, _ y: Double, _ width: Double, _ height: Double) {
        let slack = 0.000001
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= 1 + slack, y + height <= 1 + slack else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }

    /// The whole frame in normalized coordinates: the default rect of interest.
    public static let unit = Rect(x: 0, y: 0, width: 1, height: 1)

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var area: Double { max(0, width) * max(0, height) }

    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x <= maxX && point.y >= y && point.y <= maxY
    }

    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// Intersection over union: 1 for identical rectangles, 0 for disjoint ones.
    public func intersectionOverUnion(_ other: Rect) -> Double {
        let shared = intersection(other).area
        let union = area + other.area - shared
        return union > 0 ? shared / union : 0
    }

    /// The smallest rectangle holding all points.
    public static func enclosing(_ points: [Point]) -> Rect {
        guard let first = points.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        var minX = first.x, minY = first.y, maxX = first.x, maxY = first.y
        for point in points.dropFirst() {
            minX = min(minX, point.x); maxX = max(maxX, point.x)
            minY = min(minY, point.y); maxY = max(maxY, point.y)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The rectangle with each coordinate multiplied: frame pixels to a plane's (1/2 for a
    /// half-size plane) and back.
    public func scaled(x sx: Double, y sy: Double) -> Rect {
        Rect(x: x * sx, y: y * sy, width: width * sx, height: height * sy)
    }

    /// Scales a pixel rectangle into 0...1 coordinates of an image of the given size.
    public func normalized(width imageWidth: Int, height imageHeight: Int) -> Rect {
        Rect(x: x / Double(imageWidth), y: y / Double(imageHeight),
             width: width / Double(imageWidth), height: height / Double(imageHeight))
    }

    public var description: String { "(\(x), \(y), \(width)x\(height))" }
}

/// A point with a top-left origin.
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public func normalized(width: Int, height: Int) -> Point {
        Point(x: x / Double(width), y: y / Double(height))
    }
}
