#if canImport(Glibc)
import Glibc
#endif

/// What `fstat` or `fstatat` says of a file: its kind, size and modification time.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    package var kind: Kind
    package var size: Int64
    /// Modification time, seconds since the epoch.
    package var modified: Double
    /// The file system and the file in it (`st_dev`, `st_ino`): the same file by whatever name.
    package var device: UInt64
    package var inode: UInt64

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
