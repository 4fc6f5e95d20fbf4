#if canImport(Glibc)
import Glibc
#endif

/// Makes sure descriptors 0, 1 and 2 are open before Lookout opens anything itself.
///
/// A program started with one of them closed would otherwise hand that number to the first file,
/// pipe or camera it opens: `--input -` would then read Lookout's own cancellation pipe and wait
/// forever, and detections could land in a camera node. Closed ones get /dev/null.
enum StandardDescriptors {
    /// The standard descriptors that were closed at start (now /dev/null).
    nonisolated(unsafe) private(set) static var closedAtStart: Set<Int32> = []

    static func ensureOpen() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            closedAtStart.insert(descriptor)
            // open() takes the lowest free number: this one, as the lower ones are open.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened != descriptor, opened >= 0 {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    static var standardInputWasClosed: Bool { closedAtStart.contains(STDIN_FILENO) }

    /// Where detection lines go: standard output, or, when it was closed at start, a descriptor
    /// that fails (EBADF) so the first line ends the run with that error, as before.
    static var outputDescriptor: Int32 { closedAtStart.contains(STDOUT_FILENO) ? -1 : STDOUT_FILENO }
}
