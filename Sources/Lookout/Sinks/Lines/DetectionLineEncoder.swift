/// Writes metadata objects as JSON lines, schema version 1 (schema/lookout-line.schema.json).
///
/// One line per object per analysed frame; fields are documented in the README ("Output lines").
public struct DetectionLineEncoder {
    /// The `version` field of every line this encoder writes.
    public static let schemaVersion = 1

    /// The value of each line's `source` field.
    public let source: String
    /// The value of each line's `camera` field (the input's name), or nil for none (`lookout scan`).
    public let camera: String?
    private var writer = JSONWriter()

    /// Path bytes that are not UTF-8 (see `String(platformPath:)`) are written as U+FFFD.
    public init(source: String, camera: String? = nil) {
        self.source = source.repairedPath
        self.camera = camera
    }

    /// The line for one object, newline included.
    public mutating func encode(_ object: MetadataObject) -> [UInt8] {
        encode(object, eventKind: nil)
    }

    /// The line for one object; with `eventKind`, as that event (`code`, `face_enter`): the kind
    /// names the event and `type` the object's kind; `snapshot` names the event's snapshot file.
    mutating func encode(_ object: MetadataObject, eventKind: String?, snapshot: String? = nil) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("version"); writer.integer(Self.schemaVersion)
        if let eventKind {
            writer.key("kind"); writer.string(eventKind)
            writer.key("type"); writer.string(object.type.rawValue)
        } else {
            writer.key("kind"); writer.string(object.type.rawValue)
        }
        if let code = object as? MachineReadableCodeObject {
            writer.key("symbology"); writer.string(code.type.zbarName)
            writer.key("value"); writer.string(code.stringValue)
            writer.key("encoding"); writer.string(code.textEncoding.rawValue)
            if !code.payloadIsUTF8 {
                writer.key("raw_base64"); writer.string(Base64.encode(code.payload))
            }
            writer.key("length"); writer.integer(code.payload.count)
            writer.key("decoder"); writer.string(code.decoder.rawValue)
        }
        if let face = object as? FaceObject {
            writer.key("face_id"); writer.integer(face.faceID)
        }
        writer.frameFields(sequence: object.frameSequence, presentationTime: object.time, wallClockTime: object.wallClockTime,
                           source: source, camera: camera, width: object.imageWidth, height: object.imageHeight)
        writer.key("bounds"); writer.rect(object.bounds, fractionDigits: 6)
        writer.key("pixel_bounds"); writer.rect(object.pixelBounds, fractionDigits: 1)
        if let code = object as? MachineReadableCodeObject {
            writer.key("corners"); writer.points(code.corners, fractionDigits: 6)
            writer.key("pixel_corners"); writer.points(code.pixelCorners, fractionDigits: 1)
        }
        if let zone = object.zone { writer.key("zone"); writer.string(zone) }
        if let snapshot { writer.key("snapshot"); writer.string(snapshot) }
        writer.endObject()
        var line = writer.bytes
        line.append(0x0A)
        return line
    }
}

extension JSONWriter {
    /// The fields every line about a frame carries: `frame`, `pts`, `time`, `source`, `camera`, `image`.
    mutating func frameFields(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime,
                              source: String, camera: String?, width: Int, height: Int) {
        key("frame"); integer(sequence)
        key("pts"); number(presentationTime.seconds)
        key("time"); string(wallClockTime.rfc3339)
        key("source"); string(source)
        if let camera { key("camera"); string(camera) }
        key("image")
        beginObject()
        key("width"); integer(width)
        key("height"); integer(height)
        endObject()
    }

    mutating func rect(_ rect: Rect, fractionDigits: Int) {
        beginObject()
        key("x"); number(rect.x, fractionDigits: fractionDigits)
        key("y"); number(rect.y, fractionDigits: fractionDigits)
        key("width"); number(rect.width, fractionDigits: fractionDigits)
        key("height"); number(rect.height, fractionDigits: fractionDigits)
        endObject()
    }

    mutating func points(_ points: [Point], fractionDigits: Int) {
        beginArray()
        for point in points {
            beginObject()
            key("x"); number(point.x, fractionDigits: fractionDigits)
            key("y"); number(point.y, fractionDigits: fractionDigits)
            endObject()
        }
        endArray()
    }
}
