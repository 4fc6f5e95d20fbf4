/// Where in a camera's frame objects count, and under which name: masks (parts never reported,
/// e.g. a poster with a face or a shelf of products) and named zones.
///
/// Everything is decided by an object's centre, the middle of its bounding box in normalized
/// coordinates: an object whose centre lies in any mask is dropped; any other carries the name
/// of the first zone, in the order given, whose polygon holds its centre (zones may overlap).
/// Points on an edge are inside.
public struct DetectionRegions: Sendable, Equatable, Hashable, Codable {
    public let masks: [RegionPolygon]
    public let zones: [Zone]

    /// No masks and no zones: every object counts, none has a zone.
    public static let none = DetectionRegions(uncheckedMasks: [], zones: [])

    /// Throws when two zones share a name.
    public init(masks: [RegionPolygon] = [], zones: [Zone] = []) throws(RegionError) {
        var names = Set<String>()
        for zone in zones where !names.insert(zone.name).inserted { throw .duplicateZoneName(zone.name) }
        self.init(uncheckedMasks: masks, zones: zones)
    }

    private init(uncheckedMasks masks: [RegionPolygon], zones: [Zone]) {
        self.masks = masks
        self.zones = zones
    }

    public var isEmpty: Bool { masks.isEmpty && zones.isEmpty }

    /// The zones' names, in order.
    public var zoneNames: [String] { zones.map(\.name) }

    /// Whether a point (an object's centre) lies in a mask.
    public func isMasked(_ point: Point) -> Bool {
        masks.contains { $0.contains(point) }
    }

    /// The name of the first zone holding the point, or nil.
    public func zone(for point: Point) -> String? {
        zones.first { $0.polygon.contains(point) }?.name
    }

    private enum CodingKeys: String, CodingKey {
        case masks, zones
    }

    /// Decoded as `{"masks": [...], "zones": [...]}`, either key optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let masks = try container.decodeIfPresent([RegionPolygon].self, forKey: .masks) ?? []
        let zones = try container.decodeIfPresent([Zone].self, forKey: .zones) ?? []
        do {
            try self.init(masks: masks, zones: zones)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .zones, in: container, debugDescription: error.description)
        }
    }
}

extension MetadataObject {
    /// The middle of the object's bounding box, normalized: what masks and zones are decided by.
    public var centre: Point { Point(x: bounds.midX, y: bounds.midY) }
}

extension DetectionRegions {
    /// Writes `"masks": [[[x, y], ...], ...], "zones": [{"name": ..., "points": [[x, y], ...]}, ...]`
    /// into the object `writer` is in (the web view's status, which draws them).
    package func writeFields(into writer: inout JSONWriter) {
        writer.key("masks")
        writer.beginArray()
        for mask in masks { Self.write(mask, into: &writer) }
        writer.endArray()
        writer.key("zones")
        writer.beginArray()
        for zone in zones {
            writer.beginObject()
            writer.key("name"); writer.string(zone.name)
            writer.key("points"); Self.write(zone.polygon, into: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    private static func write(_ polygon: RegionPolygon, into writer: inout JSONWriter) {
        writer.beginArray()
        for point in polygon.points {
            writer.beginArray()
            writer.number(point.x)
            writer.number(point.y)
            writer.endArray()
        }
        writer.endArray()
    }
}
