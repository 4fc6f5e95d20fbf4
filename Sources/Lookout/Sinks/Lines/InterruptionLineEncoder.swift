/// The `camera_lost` and `camera_found` lines (schema version 1), written when a session is
/// interrupted and when frames flow again.
public enum InterruptionLineEncoder {
    /// Starts a line with the fields both kinds share.
    private static func begin(_ kind: String, source: String, camera: String?, time: WallClockTime) -> JSONWriter {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("version"); writer.integer(DetectionLineEncoder.schemaVersion)
        writer.key("kind"); writer.string(kind)
        writer.key("source"); writer.string(source.repairedPath)
        if let camera { writer.key("camera"); writer.string(camera) }
        writer.key("time"); writer.string(time.rfc3339)
        return writer
    }

    public static func lost(source: String, camera: String? = nil, reason: String, time: WallClockTime = .now()) -> [UInt8] {
        var writer = begin("camera_lost", source: source, camera: camera, time: time)
        writer.key("reason"); writer.string(reason)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    public static func found(source: String, camera: String? = nil, format: VideoFormatDescription, time: WallClockTime = .now()) -> [UInt8] {
        var writer = begin("camera_found", source: source, camera: camera, time: time)
        writer.key("format")
        writer.beginObject()
        writer.key("pixel_format"); writer.string(format.pixelFormat.rawValue)
        writer.key("width"); writer.integer(format.width)
        writer.key("height"); writer.integer(format.height)
        writer.key("fps"); if let rate = format.frameRate { writer.number(rate, fractionDigits: 3) } else { writer.null() }
        writer.endObject()
        writer.endObject()
        return writer.bytes + [0x0A]
    }
}
