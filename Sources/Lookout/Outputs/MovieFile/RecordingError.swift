/// Why a recording could not be made or went on no longer. Each case carries its cause.
public enum RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be made (the directory is gone or not writable, the name exists, ...).
    case cannotCreate(path: String, reason: String, Errno?)
    /// Writing the file failed part-way (the disk is full, the device went away, ...).
    case writeFailed(path: String, reason: String, Errno?)
    /// libavformat, which writes the files, is not installed or not usable.
    case libraryUnavailable(String)
    /// A frame could not be compressed for the file (a raw frame TurboJPEG rejected).
    case compressionFailed(String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason, _): return "cannot record to \(path): \(reason)"
        case .writeFailed(let path, let reason, _): return "recording \(path) failed: \(reason)"
        case .libraryUnavailable(let reason): return "cannot record: \(reason)"
        case .compressionFailed(let reason): return "cannot compress a frame for recording: \(reason)"
        }
    }

    /// The system error behind it, when there is one (ENOSPC for a full disk).
    public var errno: Errno? {
        switch self {
        case .cannotCreate(_, _, let errno), .writeFailed(_, _, let errno): return errno
        case .libraryUnavailable, .compressionFailed: return nil
        }
    }
}
