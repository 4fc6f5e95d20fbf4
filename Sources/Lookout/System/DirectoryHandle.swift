#if canImport(Glibc)
import Glibc
#endif

/// An open directory, and every file operation Lookout does in it, relative to its descriptor
/// (`openat`, `renameat`, `fstatat`, `unlinkat`): a name is looked up in this directory and
/// nowhere else, whatever happens to the path meanwhile, and a symbolic link in it is never
/// followed (a link named like a file Lookout writes or serves is an error, never its target).
/// Names are single entries: a name with a slash, `.` or `..` is refused (`EINVAL`).
package final class DirectoryHandle: Sendable {
    /// The path it was opened by, for messages.
    package let path: String
    private let descriptor: Int32

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Opens the directory at `path`. Links in `path` are followed: it is the path the user named.
    package static func open(path: String) throws(Errno) -> DirectoryHandle {
        let fd = path.withPlatformPath { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw Errno.current }
        return DirectoryHandle(descriptor: fd, path: path)
    }

    /// Makes `path` when it is missing (one level, as `mkdir`), then opens it.
    package static func openMaking(path: String) throws(Errno) -> DirectoryHandle {
        if path.withPlatformPath({ mkdir($0, 0o755) }) != 0, Errno.current.rawValue != EEXIST { throw Errno.current }
        return try open(path: path)
    }

    /// Creates `path` and its missing parents, 0700 each (the path the user named: links in it
    /// are followed); the error names the folder that could not be made.
    package static func makeWithParents(path: String) throws(FailedPath) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if prefix.withPlatformPath({ mkdir($0, 0o700) }) != 0, errno != EEXIST { throw FailedPath(path: prefix, errno: .current) }
        }
    }

    /// `text` as one entry name: `%` and `/` percent-encoded, and a leading `.`, so that it never
    /// names another folder.
    package static func entryName(for text: String) -> String {
        var name = ""
        for (index, character) in text.enumerated() {
            switch character {
            case "%": name += "%25"
            case "/": name += "%2F"
            case "." where index == 0: name += "%2E"
            default: name.append(character)
            }
        }
        return name
    }

    /// A path and why an operation on it failed.
    package struct FailedPath: Error {
        package var path: String
        package var errno: Errno
    }

    /// The directory `name` in this one, made first (with `permissions`) when missing with
    /// `making`; never through a link (`O_NOFOLLOW`): a link named so is `ENOTDIR`/`ELOOP`, not
    /// the place it points to.
    package func subdirectory(named name: String, making: Bool, permissions: mode_t = 0o755) throws(Errno) -> DirectoryHandle {
        try Self.check(name)
        if making, name.withPlatformPath({ mkdirat(descriptor, $0, permissions) }) != 0, Errno.current.rawValue != EEXIST {
            throw Errno.current
        }
        let fd = name.withPlatformPath { openat(descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw Errno.current }
        return DirectoryHandle(descriptor: fd, path: path + "/" + name)
    }

    /// Creates the file `name` for writing: a new file only (`O_EXCL`: whatever has the name
    /// already, a planted link included, makes it `EEXIST`), never through a link.
    package func createFile(named name: String, permissions: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        try Self.check(name)
        let fd = name.withPlatformPath {
            openat(descriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        }
        guard fd >= 0 else { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the regular file `name` for reading: a link is `ELOOP` (never followed), anything
    /// but a regular file (a directory, a FIFO, a device) `EINVAL`. A FIFO does not block the open.
    package func openRegularFile(named name: String) throws(Errno) -> FileDescriptor {
        try openRegular(name, O_RDONLY, 0)
    }

    /// Opens the regular file `name` for reading and appending (`O_RDWR|O_APPEND`), a new one
    /// (`O_CREAT|O_EXCL`, with `permissions`) when `creating`; never through a link (`ELOOP`, or
    /// `EEXIST` when creating), and only a regular file (else `EINVAL`).
    package func openAppending(named name: String, creating: Bool, permissions: mode_t = 0o600) throws(Errno) -> FileDescriptor {
        try openRegular(name, O_RDWR | O_APPEND | (creating ? O_CREAT | O_EXCL : 0), permissions)
    }

    /// Opens the file `name` to lock (`flock`) and nothing else: made (`O_EXCL`) when missing, else
    /// the one there; never through a link (`ELOOP`), and only a regular file (else `EINVAL`).
    package func openLockFile(named name: String, permissions: mode_t = 0o600) throws(Errno) -> FileDescriptor {
        do throws(Errno) {
            return try openRegular(name, O_RDWR | O_CREAT | O_EXCL, permissions)
        } catch where error.rawValue == EEXIST {
            return try openRegular(name, O_RDWR, permissions)
        }
    }

    private func openRegular(_ name: String, _ flags: Int32, _ permissions: mode_t) throws(Errno) -> FileDescriptor {
        try Self.check(name)
        // O_NONBLOCK: a FIFO named so does not block the open (it is then refused as no regular file).
        let fd = name.withPlatformPath { openat(descriptor, $0, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, permissions) }
        guard fd >= 0 else { throw Errno.current }
        let file = FileDescriptor(rawValue: fd)
        guard try file.status().kind == .regular else { throw Errno(rawValue: EINVAL) }
        return file
    }

    /// What the directory itself is (`fstat` of its descriptor).
    package func status() throws(Errno) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Errno.current }
        return FileStatus(info)
    }

    /// fsync(2)s the directory: the names made, renamed and removed in it reach the disk.
    package func sync() throws(Errno) {
        guard fsync(descriptor) == 0 else { throw Errno.current }
    }

    /// Renames `name` to `newName` within this directory (`renameat`). An entry named `newName`
    /// is replaced, a link included: the link goes, its target is untouched.
    package func rename(_ name: String, to newName: String) throws(Errno) {
        try Self.check(name)
        try Self.check(newName)
        let renamed = name.withPlatformPath { from in newName.withPlatformPath { to in renameat(descriptor, from, descriptor, to) } }
        guard renamed == 0 else { throw Errno.current }
    }

    /// What `name` is, the entry itself (a link is `.symbolicLink`, never its target).
    package func status(named name: String) throws(Errno) -> FileStatus {
        try Self.check(name)
        var info = stat()
        guard name.withPlatformPath({ fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { throw Errno.current }
        return FileStatus(info)
    }

    /// Deletes the entry `name` (a link is deleted, not its target). For a temporary file of
    /// Lookout's own that is to go whatever it is.
    package func remove(named name: String) throws(Errno) {
        try Self.check(name)
        guard name.withPlatformPath({ unlinkat(descriptor, $0, 0) }) == 0 else { throw Errno.current }
    }

    /// Deletes `name` only when it is a regular file (`fstatat` without following, then
    /// `unlinkat`): a link, a directory or a FIFO named like Lookout's files is left alone
    /// (`EINVAL`).
    package func removeRegularFile(named name: String) throws(Errno) {
        guard try status(named: name).kind == .regular else { throw Errno(rawValue: EINVAL) }
        try remove(named: name)
    }

    /// The names in the directory (`.` and `..` left out), in no particular order.
    package func names() throws(Errno) -> [String] {
        // fdopendir takes the descriptor it is given: a fresh one, reading from the start.
        let fd = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current }
        guard let stream = fdopendir(fd) else {
            let error = Errno.current
            close(fd)
            throw error
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(platformPath: raw.prefix { $0 != 0 }) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Throws unless this process may create files in the directory (`faccessat`, `W_OK`): a
    /// read-only folder or file system says so before any file is attempted.
    package func checkWritable() throws(Errno) {
        guard faccessat(descriptor, ".", W_OK | X_OK, AT_EACCESS) == 0 else { throw Errno.current }
    }

    /// A name is one entry of this directory.
    private static func check(_ name: String) throws(Errno) {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else {
            throw Errno(rawValue: EINVAL)
        }
    }
}
