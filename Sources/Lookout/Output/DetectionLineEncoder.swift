/// Writes metadata objects as JSON lines, schema version 1 (schema/lookout-line.schema.json).
///
/// One line per object per analysed frame; fields are documented in the README ("Output lines").
public struct DetectionLineEncoder {
    /// The `version` field of every line this encoder writes.
    public static let schemaVersion = 1

    /// The value of each line's `source` field.
    public let source: String
    private var writer = JSONWriter()

    public init(source: String) {
        self.source = source
    }

    /// The line for one object, newline included. The returned bytes are reused by the next call.
    public mutating func encode(_ object: MetadataObject) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("version"); writer.integer(Self.schemaVersion)
        writer.key("kind"); writer.string(object.type.rawValue)
        if let code = object as? MachineReadableCodeObject {
            writer.key("symbology"); writer.string(code.type.zbarName)
            writer.key("value"); writer.string(code.stringValue)
            writer.key("encoding"); writer.string(code.textEncoding.rawValue)
            if !code.payloadIsUTF8 {
                writer.key("raw_base64"); writer.string(Base64.encode(code.payload))
            }
            writer.key("length"); writer.integer(code.payload.count)
        }
        if let face = object as? FaceObject {
            writer.key("face_id"); writer.integer(face.faceID)
        }
        writer.key("frame"); writer.integer(object.frameSequence)
        writer.key("pts"); writer.number(object.time.seconds)
        writer.key("time"); writer.string(object.wallClockTime.rfc3339)
        writer.key("source"); writer.string(source)
        writer.key("image")
        writer.beginObject()
        writer.key("width"); writer.integer(object.imageWidth)
        writer.key("height"); writer.integer(object.imageHeight)
        writer.endObject()
        writer.key("bounds"); writeRect(object.bounds, fractionDigits: 6)
        writer.key("pixel_bounds"); writeRect(object.pixelBounds, fractionDigits: 1)
        if let code = object as? MachineReadableCodeObject {
            writer.key("corners"); writePoints(code.corners, fractionDigits: 6)
            writer.key("pixel_corners"); writePoints(code.pixelCorners, fractionDigits: 1)
        }
        writer.endObject()
        var line = writer.bytes
        line.append(0x0A)
        return line
    }

    private mutating func writeRect(_ rect: Rect, fractionDigits: Int) {
        writer.beginObject()
        writer.key("x"); writer.number(rect.x, fractionDigits: fractionDigits)
        writer.key("y"); writer.number(rect.y, fractionDigits: fractionDigits)
        writer.key("width"); writer.number(rect.width, fractionDigits: fractionDigits)
        writer.key("height"); writer.number(rect.height, fractionDigits: fractionDigits)
        writer.endObject()
    }

    private mutating func writePoints(_ points: [Point], fractionDigits: Int) {
        writer.beginArray()
        for point in points {
            writer.beginObject()
            writer.key("x"); writer.number(point.x, fractionDigits: fractionDigits)
            writer.key("y"); writer.number(point.y, fractionDigits: fractionDigits)
            writer.endObject()
        }
        writer.endArray()
    }
}
