#if canImport(Glibc)
import Glibc
#endif

/// The state directory's `outbox` folder, where each camera connection's journal has a folder of
/// its own: created 0700 where missing (its events are the cameras' codes and presence), checked
/// writable, held open, and locked (`outbox/lock`, flock(2)) for as long as anything in this
/// process uses it. A second process on the same state directory is refused here, before it
/// makes any broker connection (one with the first's client ID would throw the first off).
///
/// The state directory's own path is followed (it is the path the user named, and may pass
/// through links); everything Lookout makes inside it (`outbox`, the journals' folders, the
/// locks, the segments) is opened relative to its parent's descriptor with `O_NOFOLLOW`: a
/// symbolic link at any of those names is refused (`OutboxError.symbolicLink`), never followed.
///
/// One instance per state directory and process: `prepare` hands out the one open while it lives.
public final class OutboxDirectory: Sendable {
    /// The state directory, as given.
    public let stateDirectory: String
    /// The `outbox` folder, open.
    let folder: DirectoryHandle
    private let lock: FileDescriptor

    /// `<stateDirectory>/outbox`.
    public var path: String { folder.path }

    private init(stateDirectory: String, folder: DirectoryHandle, lock: FileDescriptor) {
        self.stateDirectory = stateDirectory
        self.folder = folder
        self.lock = lock
    }

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private final class Weak {
        weak var directory: OutboxDirectory?
        init(_ directory: OutboxDirectory) { self.directory = directory }
    }

    /// The outbox folders this process holds, by the folder's identity (the same folder by any
    /// path): a second flock(2) on another open of the lock would be refused, even in one process.
    private static let held = Locked<[Identity: Weak]>([:])

    /// Creates the state directory `path` (0700, with missing parents) and its `outbox` folder
    /// when missing, checks that Lookout may write there, and locks it; the one already held by
    /// this process when there is one.
    public static func prepare(stateDirectory path: String) throws(OutboxError) -> OutboxDirectory {
        try make(path)
        let state: DirectoryHandle
        do throws(Errno) { state = try DirectoryHandle.open(path: path) } catch { throw .cannotCreate(path: path, error) }
        let folder: DirectoryHandle
        do throws(Errno) {
            folder = try state.subdirectory(named: "outbox", making: true, permissions: 0o700)
        } catch {
            // Not made: the state directory refuses it; made or there but not opened: the folder.
            let missing = (try? state.status(named: "outbox")) == nil
            throw OutboxError.opening("outbox", in: state, error) { outbox, errno in .notWritable(path: missing ? path : outbox, errno) }
        }
        let identity: Identity
        do throws(Errno) {
            try folder.checkWritable()
            let status = try folder.status()
            identity = Identity(device: status.device, inode: status.inode)
        } catch {
            throw .notWritable(path: folder.path, error)
        }
        return try held.withLock { held throws(OutboxError) -> OutboxDirectory in
            if let open = held[identity]?.directory { return open }
            let lock = try lockFile(in: folder) { OutboxError.stateDirectoryInUse(path: path) }
            let directory = OutboxDirectory(stateDirectory: path, folder: folder, lock: lock)
            held = held.filter { $0.value.directory != nil }
            held[identity] = Weak(directory)
            return directory
        }
    }

    /// The folder `name` in the outbox (a journal's), made 0700 when missing; never a link.
    func journalFolder(named name: String) throws(OutboxError) -> DirectoryHandle {
        do throws(Errno) {
            return try folder.subdirectory(named: name, making: true, permissions: 0o700)
        } catch {
            throw OutboxError.opening(name, in: folder, error) { path, errno in .cannotCreate(path: path, errno) }
        }
    }

    /// Opens `directory`'s `lock` (never through a link) and takes its flock(2); `busy` when
    /// another holds it. A child being started by any thread holds a copy of the descriptor until
    /// its exec(2) closes it, and the lock with it: a lock just released (a reload, a restart of
    /// a camera) may stay held that long, so a held lock is tried for a second. Another process
    /// holds it for good.
    static func lockFile(in directory: DirectoryHandle, busy: () -> OutboxError) throws(OutboxError) -> FileDescriptor {
        let file: FileDescriptor
        do throws(Errno) {
            file = try directory.openLockFile(named: "lock")
        } catch {
            throw OutboxError.opening("lock", in: directory, error) { path, errno in .cannotWrite(path: path, errno) }
        }
        for attempt in 1...100 {
            do throws(Errno) {
                if try file.tryLockExclusively() { return file }
            } catch {
                throw .cannotWrite(path: directory.path + "/lock", error)
            }
            if attempt < 100 { usleep(10_000) }
        }
        throw busy()
    }

    /// Creates `path` and its missing parents, 0700 each.
    static func make(_ path: String) throws(OutboxError) {
        do throws(DirectoryHandle.FailedPath) {
            try DirectoryHandle.makeWithParents(path: path)
        } catch {
            throw .cannotCreate(path: error.path, error.errno)
        }
    }
}
