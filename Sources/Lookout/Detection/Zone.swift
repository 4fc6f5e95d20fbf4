/// A named part of the frame: objects whose centre lies in its polygon carry its name (`zone` in
/// lines), and presence is told for it on its own. Names follow the camera-name rule
/// (`CameraName`: 1 to 64 of A-Z a-z 0-9 _ -), so they are safe in JSON, MQTT topics, Home
/// Assistant IDs and environment variables.
public struct Zone: Sendable, Equatable, Hashable, Codable {
    public let name: String
    public let polygon: RegionPolygon

    public init(name: String, polygon: RegionPolygon) throws(RegionError) {
        guard CameraName.isValid(name) else { throw .invalidZoneName(name) }
        self.name = name
        self.polygon = polygon
    }

    private enum CodingKeys: String, CodingKey {
        case name
        case polygon = "points"
    }

    /// Decoded as `{"name": "door", "points": [[x, y], ...]}` (or the points' text form).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        let polygon = try container.decode(RegionPolygon.self, forKey: .polygon)
        do {
            try self.init(name: name, polygon: polygon)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: error.description)
        }
    }
}
