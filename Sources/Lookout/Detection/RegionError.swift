/// Why a mask, a zone or a set of them cannot be used. Each description is a clause that reads
/// after the key it is about ("masks[0]: a polygon needs at least 3 points; this one has 2").
public enum RegionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A polygon with fewer than three points.
    case tooFewPoints(count: Int)
    /// A coordinate outside 0...1 (`point` counts from 0; `axis` is "x" or "y").
    case coordinateOutOfRange(point: Int, axis: String, value: Double)
    /// A coordinate that is NaN or infinite.
    case coordinateNotFinite(point: Int, axis: String)
    /// A word of the text form that is not an `x,y` pair of numbers.
    case malformedPoint(String)
    /// A zone name outside the camera-name rule (`CameraName`).
    case invalidZoneName(String)
    /// Two zones of one camera with the same name.
    case duplicateZoneName(String)

    public var description: String {
        switch self {
        case .tooFewPoints(let count):
            return "a polygon needs at least 3 points; this one has \(count)"
        case .coordinateOutOfRange(let point, let axis, let value):
            return "point \(point + 1)'s \(axis) is \(value); coordinates are fractions of the frame, 0 to 1"
        case .coordinateNotFinite(let point, let axis):
            return "point \(point + 1)'s \(axis) is not a finite number; coordinates are fractions of the frame, 0 to 1"
        case .malformedPoint(let word):
            return "'\(word)' is not a point: a polygon is x,y pairs separated by spaces, e.g. '0.1,0.1 0.5,0.1 0.5,0.5'"
        case .invalidZoneName(let name):
            return "'\(name)' is not a zone name: 1 to \(CameraName.maximumLength) of A-Z a-z 0-9 _ -"
        case .duplicateZoneName(let name):
            return "the zone name '\(name)' is used twice; each zone of a camera needs its own"
        }
    }
}
