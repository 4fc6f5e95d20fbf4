#if canImport(Glibc)
import Glibc
#endif

/// Whether standard error is systemd's journal: `$JOURNAL_STREAM` ("DEVICE:INODE", set by systemd
/// for a service whose output goes to the journal) names the very file standard error is. A
/// child whose standard error was redirected elsewhere inherits the variable, not the stream,
/// so the variable alone is not enough.
enum JournalStream {
    static func isStandardError() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
