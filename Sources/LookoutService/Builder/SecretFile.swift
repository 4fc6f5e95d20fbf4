import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Why a secret file was not read.
package enum SecretFileError: Error, CustomStringConvertible {
    /// open(2) or read(2) failed.
    case unreadable(Errno)
    /// A FIFO, device, socket or directory: reading one could block for ever or never end.
    case notARegularFile(kind: String)
    /// The first line is longer than the secret may be.
    case tooLong(limit: Int)

    package var description: String {
        switch self {
        case .unreadable(let error): return error.description
        case .notARegularFile(let kind): return "it is \(kind), not a regular file"
        case .tooLong(let limit): return "its first line is longer than \(limit) bytes"
        }
    }
}

/// The first line of a file holding a secret (`--mqtt-password-file`, `--http-token-file`, a
/// systemd credential), without its line end (LF or CRLF): secrets are read from files so that
/// `ps` never shows them. Only a regular file is read: a FIFO would block the start for ever,
/// a device (`/dev/zero`) never end. A first line longer than `limit` bytes is refused.
/// Symbolic links are followed (no O_NOFOLLOW): /etc/lookout files and credentials may be links,
/// and what they lead to is checked the same way.
package func firstLineOfSecretFile(_ path: String, limit: Int) throws(SecretFileError) -> [UInt8] {
    var info = stat()
    // Looked at before opening: opening a device or a FIFO can itself have effects.
    guard path.withPlatformPath({ stat($0, &info) }) == 0 else { throw .unreadable(.current) }
    try requireRegularFile(info)
    // O_NONBLOCK: a FIFO swapped in after the look does not block the open.
    let fd = path.withPlatformPath { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
    guard fd >= 0 else { throw .unreadable(.current) }
    defer { close(fd) }
    guard fstat(fd, &info) == 0 else { throw .unreadable(.current) }
    try requireRegularFile(info)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    // One byte past the limit tells a line that is too long from one that just fits.
    while bytes.count <= limit + 2 {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw .unreadable(.current) }
        if n == 0 { break }
        bytes += chunk[..<n]
        if chunk[..<n].contains(0x0A) { break }
    }
    var line = ArraySlice(bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    if line.last == 0x0D { line = line.dropLast() }
    guard line.count <= limit else { throw .tooLong(limit: limit) }
    return Array(line)
}

/// Throws when something other than a regular file is at `path` (a FIFO, device, socket or
/// directory), without opening it; a path where nothing is, or that cannot be looked at, passes:
/// whoever opens it says why it cannot.
package func refuseSpecialFile(at path: String) throws(SecretFileError) {
    var info = stat()
    guard path.withPlatformPath({ stat($0, &info) }) == 0 else { return }
    try requireRegularFile(info)
}

/// Throws unless `info` describes a regular file, naming what it is instead.
private func requireRegularFile(_ info: stat) throws(SecretFileError) {
    switch info.st_mode & S_IFMT {
    case S_IFREG: return
    case S_IFIFO: throw .notARegularFile(kind: "a FIFO")
    case S_IFCHR, S_IFBLK: throw .notARegularFile(kind: "a device")
    case S_IFSOCK: throw .notARegularFile(kind: "a socket")
    case S_IFDIR: throw .notARegularFile(kind: "a directory")
    default: throw .notARegularFile(kind: "a special file")
    }
}

/// A systemd credential (`LoadCredential=NAME:...` in the unit): the path of a non-empty file
/// `NAME` in $CREDENTIALS_DIRECTORY, or nil outside systemd or when the credential is empty.
/// Read when the matching option is not given, so a unit needs no secret in its arguments.
/// Anything there but a regular file is returned too, so that reading it refuses it by name.
package func systemdCredential(_ name: String) -> String? {
    guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else { return nil }
    let path = directory + "/" + name
    var info = stat()
    guard path.withPlatformPath({ stat($0, &info) }) == 0 else { return nil }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return path }
    return info.st_size > 0 ? path : nil
}
