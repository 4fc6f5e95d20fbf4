/// A change worth telling automation about, derived from the stream of analysed frames by an
/// `EventGenerator` (the `--events changes` lines, MQTT messages and hooks).
public enum DetectionEvent: Sendable {
    /// A code came into view: once per appearance, never again while it stays in view or within
    /// the de-duplication window after it leaves.
    case code(MachineReadableCodeObject)
    /// A face entered, with its new ID (`FaceObject.faceID`) and where it was first seen.
    case faceEnter(FaceObject)
    /// A face that had entered was not seen again within the tracking retention.
    case faceLeave(FaceLeave)
    /// Someone is there, or nobody is any more (with hysteresis): in the camera's view, or, with
    /// `zone` set, in one zone.
    case presence(PresenceChange)
    /// A clip was finished (`--record`).
    case recording(RecordingReport)
    /// A clip could not be made or was cut short (a full disk, the directory gone).
    case recordingFailed(RecordingReport)

    /// The analysed frame at which the event was decided.
    public var frame: AnalysedFrame {
        switch self {
        case .code(let object): return AnalysedFrame(object)
        case .faceEnter(let object): return AnalysedFrame(object)
        case .faceLeave(let leave): return leave.frame
        case .presence(let change): return change.frame
        case .recording(let report), .recordingFailed(let report): return report.frame
        }
    }

    /// The zone the event is about: the object's zone for `code` and `face_enter`, the zone a
    /// face was last seen in for `face_leave`, the zone of a zone's `presence`; nil otherwise.
    public var zone: String? {
        switch self {
        case .code(let object): return object.zone
        case .faceEnter(let object): return object.zone
        case .faceLeave(let leave): return leave.zone
        case .presence(let change): return change.zone
        case .recording, .recordingFailed: return nil
        }
    }

    /// The `kind` of the event's line.
    public var kind: String {
        switch self {
        case .code: return "code"
        case .faceEnter: return "face_enter"
        case .faceLeave: return "face_leave"
        case .presence: return "presence"
        case .recording: return "recording"
        case .recordingFailed: return "recording_failed"
        }
    }
}

/// Why a face or presence ended.
public enum EndReason: String, Sendable {
    /// Not seen for the configured time.
    case timeout
    /// The camera stopped delivering frames.
    case cameraLost = "camera_lost"
}

/// A tracked face that left the view.
public struct FaceLeave: Sendable {
    public var faceID: Int
    /// When the face entered and when it was last seen, on the stream's clock.
    public var firstSeen: MediaTime
    public var lastSeen: MediaTime
    /// Where it was last seen, in pixels and normalized.
    public var lastPixelBounds: Rect
    public var lastBounds: Rect
    public var reason: EndReason
    /// The analysis at which the face was declared gone.
    public var frame: AnalysedFrame
    /// The zone the face was last seen in, if any.
    public var zone: String? = nil
}

/// The presence state changed.
public struct PresenceChange: Sendable {
    public var isPresent: Bool
    /// Faces in view at the deciding analysis (0 when presence ends).
    public var faceCount: Int
    /// For `isPresent == false`: when a face was last seen.
    public var lastSeen: MediaTime?
    public var reason: EndReason?
    public var frame: AnalysedFrame
    /// The zone this presence is about; nil for the camera's whole view.
    public var zone: String? = nil
}

extension AnalysedFrame {
    init(_ object: MetadataObject) {
        self.init(sequence: object.frameSequence, presentationTime: object.time, wallClockTime: object.wallClockTime,
                  width: object.imageWidth, height: object.imageHeight, hostTime: object.hostTime)
    }
}
