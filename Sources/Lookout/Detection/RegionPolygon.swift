/// A polygon over the frame, in normalized coordinates (0...1, top-left origin, as `Rect` and
/// `MetadataObject.bounds`): the shape of a mask or a zone. It holds at least three points, each
/// within the frame; the last point joins the first. Self-intersecting outlines are allowed and
/// filled by the even-odd rule.
///
/// Written as text, `x,y` pairs separated by spaces (`0.1,0.1 0.5,0.1 0.5,0.5`); encoded as a
/// list of `[x, y]` pairs (`[[0.1,0.1],[0.5,0.1],[0.5,0.5]]`), and decoded from either form.
public struct RegionPolygon: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let points: [Point]
    /// The smallest rectangle holding the polygon: most points are rejected with four comparisons.
    public let bounds: Rect

    /// Throws when there are fewer than three points or a coordinate is not a number in 0...1.
    public init(_ points: [Point]) throws(RegionError) {
        guard points.count >= 3 else { throw .tooFewPoints(count: points.count) }
        for (index, point) in points.enumerated() {
            for (axis, value) in [("x", point.x), ("y", point.y)] {
                guard value.isFinite else { throw .coordinateNotFinite(point: index, axis: axis) }
                guard (0...1).contains(value) else { throw .coordinateOutOfRange(point: index, axis: axis, value: value) }
            }
        }
        self.points = points
        self.bounds = Rect.enclosing(points)
    }

    /// Reads the text form: `x,y` pairs separated by spaces (any whitespace).
    public init(parsing text: String) throws(RegionError) {
        var points: [Point] = []
        for word in text.split(whereSeparator: \.isWhitespace) {
            let parts = word.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else {
                throw .malformedPoint(String(word))
            }
            points.append(Point(x: x, y: y))
        }
        try self.init(points)
    }

    /// Whether the point lies inside, a point on an edge or a corner included.
    public func contains(x: Double, y: Double) -> Bool {
        guard x >= bounds.x, x <= bounds.maxX, y >= bounds.y, y <= bounds.maxY else { return false }
        var inside = false
        var previous = points[points.count - 1]
        for current in points {
            if Self.segment(from: previous, to: current, holds: x, y) { return true }
            // Even-odd: count the edges a ray from the point to the right crosses.
            if (current.y > y) != (previous.y > y) {
                let crossing = current.x + (y - current.y) * (previous.x - current.x) / (previous.y - current.y)
                if x < crossing { inside.toggle() }
            }
            previous = current
        }
        return inside
    }

    public func contains(_ point: Point) -> Bool {
        contains(x: point.x, y: point.y)
    }

    /// Whether (x, y) lies on the segment from `a` to `b`, within rounding.
    private static func segment(from a: Point, to b: Point, holds x: Double, _ y: Double) -> Bool {
        guard x >= min(a.x, b.x) - 1e-12, x <= max(a.x, b.x) + 1e-12,
              y >= min(a.y, b.y) - 1e-12, y <= max(a.y, b.y) + 1e-12 else { return false }
        let cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
        return abs(cross) <= 1e-12
    }

    /// The text form, which `init(parsing:)` reads back to an equal polygon.
    public var description: String {
        points.map { "\($0.x),\($0.y)" }.joined(separator: " ")
    }
}

extension RegionPolygon: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            if let text = try? container.decode(String.self) {
                try self.init(parsing: text)
                return
            }
            let pairs = try container.decode([[Double]].self)
            var points: [Point] = []
            for pair in pairs {
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "a point is an [x, y] pair; one has \(pair.count) numbers")
                }
                points.append(Point(x: pair[0], y: pair[1]))
            }
            try self.init(points)
        } catch let error as RegionError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(points.map { [$0.x, $0.y] })
    }
}
