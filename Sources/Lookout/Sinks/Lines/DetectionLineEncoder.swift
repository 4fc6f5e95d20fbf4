/// Writes metadata objects as JSON lines, schema version 1 (schema/lookout-line.schema.json).
///
/// One line per object per analysed frame; fields are documented in docs/output.md.
public struct DetectionLineEncoder {
    /// The `version` field of every line this encoder writes.
    public static let schemaVersion = 1

    /// The value of each line's `source` field.
    public let source: String
    /// The value of each line's `camera` field (the input's name), or nil for none (`lookout scan`).
    public let camera: String?
    private var writer = JSONWriter()
    /// The parts before and after the frame's fields (`frame`, `pts`, `time`) of the last lines
    /// made, by object: an unchanged frame's objects, restamped, differ only in those, and a static
    /// camera's lines were 5 % of its CPU.
    private var recent: [(object: MetadataObject, head: [UInt8], tail: [UInt8])] = []
    private var frameWriter = JSONWriter()
    private static let recentLines = 16

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
    /// names the event and `type` the object's kind, `id` is the event's id (the first key);
    /// `snapshot` names the event's snapshot file.
    mutating func encode(_ object: MetadataObject, eventKind: String?, id: String? = nil, snapshot: String? = nil) -> [UInt8] {
        let plain = eventKind == nil && snapshot == nil && id == nil
        if plain, let known = recent.first(where: { Self.sameLine($0.object, object) }) {
            frameWriter.reset()
            frameWriter.beginObject()
            frameWriter.frameTimeFields(sequence: object.frameSequence, presentationTime: object.time,
                                        wallClockTime: object.wallClockTime)
            var line = known.head
            line.append(UInt8(ascii: ","))
            line.append(contentsOf: frameWriter.bytes.dropFirst()) // without its "{"
            line.append(contentsOf: known.tail)
            return line
        }
        writer.reset()
        writer.beginObject()
        if let id { writer.key("id"); writer.string(id) }
        writer.key("version"); writer.integer(Self.schemaVersion)
        if let eventKind {
            writer.key("kind"); writer.string(eventKind)
            writer.key("type"); writer.string(object.type.rawValue)
        } else {
            writer.key("kind"); writer.string(object.type.rawValue)
        }
        if let code = object as? MachineReadableCodeObject {
            writer.key("symbology"); writer.string(code.type.zbarName)
            writer.key("aim_id"); writer.string(code.symbologyIdentifier)
            writer.key("value"); writer.string(code.stringValue)
            writer.key("encoding"); writer.string(code.textEncoding.rawValue)
            if !code.payloadIsUTF8 {
                writer.key("raw_base64"); writer.string(Base64.encode(code.payload))
            }
            writer.key("length"); writer.integer(code.payload.count)
            writer.key("decoder"); writer.string(code.decoder.rawValue)
            if let gs1 = code.gs1 { writer.gs1(gs1) }
        }
        if let face = object as? FaceObject {
            writer.key("face_id"); writer.integer(face.faceID)
        }
        let headEnd = writer.bytes.count
        writer.frameTimeFields(sequence: object.frameSequence, presentationTime: object.time, wallClockTime: object.wallClockTime)
        let tailStart = writer.bytes.count
        writer.frameSourceFields(source: source, camera: camera, width: object.imageWidth, height: object.imageHeight)
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
        if plain {
            if recent.count == Self.recentLines { recent.removeFirst() }
            recent.append((object, Array(line[..<headEnd]), Array(line[tailStart...])))
        }
        return line
    }

    /// True when the two objects' lines differ only in the frame's fields: every other field the
    /// line holds is equal (keep in step with `encode`).
    private static func sameLine(_ a: MetadataObject, _ b: MetadataObject) -> Bool {
        guard a.type == b.type, a.imageWidth == b.imageWidth, a.imageHeight == b.imageHeight,
              a.bounds == b.bounds, a.pixelBounds == b.pixelBounds, a.zone == b.zone else { return false }
        switch (a, b) {
        case let (a as MachineReadableCodeObject, b as MachineReadableCodeObject):
            return a.payload == b.payload && a.stringValue == b.stringValue && a.textEncoding == b.textEncoding
                && a.decoder == b.decoder && a.symbologyIdentifier == b.symbologyIdentifier && a.gs1 == b.gs1
                && a.corners == b.corners && a.pixelCorners == b.pixelCorners
        case let (a as FaceObject, b as FaceObject):
            return a.faceID == b.faceID
        default:
            return false
        }
    }
}

extension JSONWriter {
    /// The fields every line about a frame carries: `frame`, `pts`, `time`, `source`, `camera`, `image`.
    mutating func frameFields(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime,
                              source: String, camera: String?, width: Int, height: Int) {
        frameTimeFields(sequence: sequence, presentationTime: presentationTime, wallClockTime: wallClockTime)
        frameSourceFields(source: source, camera: camera, width: width, height: height)
    }

    /// `frame`, `pts` and `time`: what differs between the lines of a restamped object.
    mutating func frameTimeFields(sequence: UInt64, presentationTime: MediaTime, wallClockTime: WallClockTime) {
        key("frame"); integer(sequence)
        key("pts"); number(presentationTime.seconds)
        key("time"); string(wallClockTime.rfc3339)
    }

    /// `source`, `camera` and `image`.
    mutating func frameSourceFields(source: String, camera: String?, width: Int, height: Int) {
        key("source"); string(source)
        if let camera { key("camera"); string(camera) }
        key("image")
        beginObject()
        key("width"); integer(width)
        key("height"); integer(height)
        endObject()
    }

    /// `gs1`: `elements` (each `ai` and `value`), `hri` and `digital_link`.
    mutating func gs1(_ data: GS1Data) {
        key("gs1")
        beginObject()
        key("elements")
        beginArray()
        for element in data.elements {
            beginObject()
            key("ai"); string(element.ai)
            key("value"); string(element.value)
            endObject()
        }
        endArray()
        key("hri"); string(data.humanReadable)
        key("digital_link"); bool(data.isDigitalLink)
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
