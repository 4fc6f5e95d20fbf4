/// Writes events (`--events changes`, MQTT, hooks) as JSON lines of schema version 1: `code` and
/// `face_enter` carry the object's fields as detection lines do (with `kind` naming the event and
/// `type` the object); `face_leave` and `presence` carry the deciding frame and their own fields.
/// Each carries `zone` when it is about one (`DetectionEvent.zone`).
public struct EventLineEncoder {
    public let source: String
    private var objects: DetectionLineEncoder

    public let camera: String?

    public init(source: String, camera: String? = nil) {
        self.source = source.repairedPath
        self.camera = camera
        self.objects = DetectionLineEncoder(source: source, camera: camera)
    }

    /// The line for one event, newline included: `id` (`EventNumbering`) is its first key;
    /// `snapshot` names the file of the event's snapshot (`--snapshots`).
    public mutating func encode(_ event: DetectionEvent, id: String? = nil, snapshot: String? = nil) -> [UInt8] {
        switch event {
        case .code(let code):
            return objects.encode(code, eventKind: event.kind, id: id, snapshot: snapshot)
        case .faceEnter(let face):
            return objects.encode(face, eventKind: event.kind, id: id, snapshot: snapshot)
        case .faceLeave(let leave):
            var writer = begin(event, id: id)
            writer.key("face_id"); writer.integer(leave.faceID)
            writer.key("reason"); writer.string(leave.reason.rawValue)
            writer.key("first_seen_pts"); writer.number(leave.firstSeen.seconds)
            writer.key("last_seen_pts"); writer.number(leave.lastSeen.seconds)
            writer.key("duration"); writer.number(max(0, leave.lastSeen.seconds - leave.firstSeen.seconds), fractionDigits: 3)
            writer.key("bounds"); writer.rect(leave.lastBounds, fractionDigits: 6)
            writer.key("pixel_bounds"); writer.rect(leave.lastPixelBounds, fractionDigits: 1)
            if let zone = leave.zone { writer.key("zone"); writer.string(zone) }
            return end(&writer)
        case .presence(let change):
            var writer = begin(event, id: id)
            writer.key("state"); writer.string(change.isPresent ? "on" : "off")
            writer.key("faces"); writer.integer(change.faceCount)
            if let lastSeen = change.lastSeen { writer.key("last_seen_pts"); writer.number(lastSeen.seconds) }
            if let reason = change.reason { writer.key("reason"); writer.string(reason.rawValue) }
            if let zone = change.zone { writer.key("zone"); writer.string(zone) }
            if let snapshot { writer.key("snapshot"); writer.string(snapshot) }
            return end(&writer)
        case .recording(let report), .recordingFailed(let report):
            var writer = begin(event, id: id)
            writer.key("file"); writer.string(report.file)
            let movie = report.movie
            writer.key("first_pts"); writer.number(movie.firstPresentationTime.seconds)
            writer.key("last_pts"); writer.number(movie.lastPresentationTime.seconds)
            writer.key("duration"); writer.number(movie.duration.seconds, fractionDigits: 3)
            writer.key("frames"); writer.integer(movie.frameCount)
            writer.key("bytes"); writer.integer(Int(movie.fileSize))
            writer.key("frames_lost"); writer.integer(movie.framesLost)
            writer.key("reason"); writer.string(movie.reason.rawValue)
            writer.key("event")
            writer.beginObject()
            let trigger = report.trigger
            writer.key("kind"); writer.string(trigger.kind)
            if let id = trigger.id { writer.key("id"); writer.string(id) }
            writer.key("pts"); writer.number(trigger.frame.presentationTime.seconds)
            writer.key("sequence"); writer.integer(Int(trigger.frame.sequence))
            if let type = trigger.codeType { writer.key("type"); writer.string(type.rawValue) }
            if let value = trigger.codeValue { writer.key("value"); writer.string(value) }
            writer.key("count"); writer.integer(trigger.events)
            writer.endObject()
            if let error = report.error {
                writer.key("error"); writer.string(error.description)
                if let errno = error.errno { writer.key("errno"); writer.integer(Int(errno.rawValue)) }
            }
            return end(&writer)
        }
    }

    /// The fields every event line starts with: the deciding frame's sequence and times.
    private func begin(_ event: DetectionEvent, id: String?) -> JSONWriter {
        let frame = event.frame
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        if let id { writer.key("id"); writer.string(id) }
        writer.key("version"); writer.integer(DetectionLineEncoder.schemaVersion)
        writer.key("kind"); writer.string(event.kind)
        writer.frameFields(sequence: frame.sequence, presentationTime: frame.presentationTime,
                           wallClockTime: frame.wallClockTime, source: source, camera: camera, width: frame.width, height: frame.height)
        return writer
    }

    private func end(_ writer: inout JSONWriter) -> [UInt8] {
        writer.endObject()
        return writer.bytes + [0x0A]
    }
}
