import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// The first line of a file holding a secret (`--mqtt-password-file`, `--http-token-file`), without
/// its line end (LF or CRLF): secrets are read from files so that `ps` never shows them. Reads at
/// most 64 KB.
func firstLineOfSecretFile(_ path: String) throws(Errno) -> [UInt8] {
    let fd = path.withPlatformPath { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { throw .current }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 65536 {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw .current }
        if n == 0 { break }
        bytes += chunk[..<n]
        if chunk[..<n].contains(0x0A) { break }
    }
    let line = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
    return Array(line.last == 0x0D ? line.dropLast() : line)
}

/// A systemd credential (`LoadCredential=NAME:...` in the unit): the path of a non-empty file
/// `NAME` in $CREDENTIALS_DIRECTORY, or nil outside systemd or when the credential is empty.
/// Read when the matching option is not given, so a unit needs no secret in its arguments.
func systemdCredential(_ name: String) -> String? {
    guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else { return nil }
    let path = directory + "/" + name
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
    return path
}
