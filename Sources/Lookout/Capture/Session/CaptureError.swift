/// Errors of sessions, inputs and outputs. Each carries its cause (errno, path, format, type).
public enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input could not be opened or read; carries the media-level cause.
    case input(MediaError)
    /// A camera could not be opened, configured or read.
    case device(DeviceError)
    /// Metadata object types were requested that the output cannot produce.
    case unavailableMetadataObjectTypes([MetadataObjectType], available: [MetadataObjectType])
    /// The Haar cascade for faces could not be loaded.
    /// `detail` holds OpenCV's own text, beyond the sentence.
    case faceModelUnavailable(path: String, reason: String, detail: String? = nil)
    /// A detector failed at run time.
    case detectorFailed(String)
    /// The session cannot take this input or output (already in a session, one input only...).
    case cannotAdd(String)
    /// A setting out of its range (a frame rate, a size, a detector parameter); says which and why.
    case invalidSetting(String)

    public var description: String {
        switch self {
        case .input(let error):
            return error.description
        case .device(let error):
            return error.description
        case .unavailableMetadataObjectTypes(let types, let available):
            return "metadata object type\(types.count == 1 ? "" : "s") "
                + types.map(\.rawValue).joined(separator: ", ")
                + " not available (available: " + available.map(\.rawValue).joined(separator: ", ") + ")"
        case .faceModelUnavailable(let path, let reason, _):
            return "the face model \(path) cannot be loaded: \(reason)"
        case .detectorFailed(let message):
            return "a detector failed: \(message)"
        case .cannotAdd(let message), .invalidSetting(let message):
            return message
        }
    }

    /// What a library said about the failure, beyond the sentence (for --verbose).
    public var detail: String? {
        switch self {
        case .input(let error): return error.detail
        case .faceModelUnavailable(_, _, let detail?) where !detail.isEmpty: return detail
        default: return nil
        }
    }
}
