/// Why a camera could not be opened, configured or read. Each case names the device and carries
/// errno where the kernel gave one; `description` is one sentence, in the library's words (a
/// program adds its own: the command line names its options).
public enum DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchDevice(path: String)
    case permissionDenied(path: String)
    case busy(path: String)
    case notACaptureDevice(path: String, card: String)
    /// Not a V4L2 device: what the path is (`a character device`), and what VIDIOC_QUERYCAP said.
    case notV4L2(path: String, what: String, Errno)
    case noStreaming(path: String)
    case formatRefused(path: String, requested: String, reason: String)
    case noUsableFormat(path: String, offered: [String])
    case noCamera
    /// A control was asked for by a name the device does not have (`CaptureDevice.controls()`
    /// lists those it has).
    case noSuchControl(path: String, name: String)
    case ioctlFailed(path: String, request: String, Errno)
    case lost(path: String, reason: String)

    public var description: String {
        switch self {
        case .noSuchDevice(let path):
            return "\(path): no such device"
        case .permissionDenied(let path):
            return "\(path): permission denied; add your user to the 'video' group (sudo usermod -aG video $USER, then log in again)"
        case .busy(let path):
            return "\(path) is busy: another program is using the camera"
        case .notV4L2(let path, let what, let errno):
            return "\(path) is \(what) but not a video device (VIDIOC_QUERYCAP: \(errno)); Lookout reads V4L2 cameras (/dev/videoN: `lookout devices` lists them), MJPEG and Y4M files and pipes, video files and URLs through ffmpeg, and - for standard input"
        case .notACaptureDevice(let path, let card):
            return "\(path) (\(card)) is not a video capture device"
        case .noStreaming(let path):
            return "\(path) does not support streaming capture (V4L2 MMAP)"
        case .formatRefused(let path, let requested, let reason):
            return "\(path) refused the format \(requested): \(reason)"
        case .noUsableFormat(let path, let offered):
            return "\(path) offers no pixel format Lookout reads (it offers " + (offered.isEmpty ? "none" : offered.joined(separator: ", ")) + ")"
        case .noCamera:
            return "no camera found (no /dev/video* capture device)"
        case .noSuchControl(let path, let name):
            return "\(path) has no control named \(name)"
        case .ioctlFailed(let path, let request, let errno):
            return "\(path): \(request) failed: \(errno)"
        case .lost(let path, let reason):
            return "\(path): camera lost (\(reason))"
        }
    }

    /// The message for an open() failure.
    static func opening(_ path: String, _ errno: Errno) -> DeviceError {
        switch errno.rawValue {
        case ENOENT, ENODEV, ENXIO: return .noSuchDevice(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case EBUSY: return .busy(path: path)
        // libv4l2's open asks VIDIOC_QUERYCAP: a device of another kind answers ENOTTY (/dev/null)
        // or EINVAL (/dev/urandom).
        case ENOTTY, EINVAL: return .notV4L2(path: path, what: fileKind(path), errno)
        default: return .ioctlFailed(path: path, request: "open", errno)
        }
    }

    /// What is at `path`, in words: "a character device", "a regular file".
    private static func fileKind(_ path: String) -> String {
        var info = stat()
        guard path.withPlatformPath({ stat($0, &info) }) == 0 else { return "a file" }
        switch info.st_mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFREG: return "a regular file"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        default: return "a special file"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
