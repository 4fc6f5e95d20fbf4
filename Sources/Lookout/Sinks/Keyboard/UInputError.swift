#if canImport(Glibc)
import Glibc
#endif

/// Why the virtual keyboard could not be made or typed on; each in one sentence that says what to
/// do, naming the device node and the system's error.
public enum UInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node could not be opened: missing (the module is not loaded), or not writable.
    case open(path: String, errno: Errno)
    /// The kernel refused a step of making the device (declaring keys, the setup, creating it).
    case create(path: String, step: String, errno: Errno)
    /// A key event could not be written.
    case write(path: String, errno: Errno)

    public var errno: Errno {
        switch self {
        case .open(_, let errno), .create(_, _, let errno), .write(_, let errno): return errno
        }
    }

    /// True when the fix is the system's, not Lookout's settings: the node is missing or not
    /// writable (the exit status for it is documented apart).
    public var isUnavailable: Bool {
        if case .open = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .open(let path, let errno):
            let reason = "cannot open \(path) (\(errno.description.lowercased())) for the keyboard output"
            switch errno.rawValue {
            case EACCES, EPERM, EROFS:
                return reason + ": add the user to the group that owns it (sudo usermod -aG lookout $USER, then log in again) "
                    + "and install the udev rule that gives that group access (60-lookout-uinput.rules; the Debian package "
                    + "and scripts/install do both)"
            case ENOENT, ENODEV, ENXIO:
                return reason + ": load the uinput module (sudo modprobe uinput; the Debian package and scripts/install load it "
                    + "at every boot through modules-load.d/lookout.conf)"
            default:
                return reason
            }
        case .create(let path, let step, let errno):
            return "cannot make the virtual keyboard on \(path): \(step) failed (\(errno.description.lowercased()))"
        case .write(let path, let errno):
            return "cannot type on the virtual keyboard (\(path)): \(errno.description.lowercased())"
        }
    }
}
