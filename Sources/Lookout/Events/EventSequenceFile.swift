#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The numbers of one camera's event ids, kept in the state directory (`event-ids/<name>`) so
/// that they go on across restarts and never repeat. Numbers are reserved a block at a time: the
/// file holds the first number past the reserved block, written and synced (a new file renamed
/// over the old) before any number of the block is given. A run writes once per `block` events,
/// and the next run begins past the last block reserved: numbers only grow, and may skip.
///
/// One instance per file and process (`open` hands out the one open while it lives): a camera
/// reloaded while its old pipeline still numbers shares the series. One process per state
/// directory (the MQTT outbox enforces it).
///
/// Its folder is made 0700 and opened relative to the state directory's descriptor: a link at
/// `event-ids` or at the file's name is refused, never followed.
public final class EventSequenceFile: Sendable {
    /// Numbers reserved at a time.
    public static let block: UInt64 = 256
    /// The file, for messages.
    public let path: String
    private let folder: DirectoryHandle
    private let name: String
    private let warn: @Sendable (String) -> Void

    private struct State {
        var next: UInt64
        /// The first number not reserved.
        var reservedEnd: UInt64
        /// A reservation could not be written: said once, then numbers go on in memory.
        var failing = false
    }
    private let state: Mutex<State>

    /// Opens (creating it and its folder when missing) the sequence `name` of the state directory
    /// `stateDirectory` (made with its missing parents, 0700). `warn` hears a damaged file
    /// (numbering then starts past any number the file could have given) and a reservation that
    /// could not be written (a full disk: numbers go on in memory, and may repeat after a restart).
    /// A new file's series begins at `firstWhenNew`.
    public static func open(stateDirectory: String, name: String, firstWhenNew: UInt64 = 1,
                            warn: @escaping @Sendable (String) -> Void) throws(EventSequenceError) -> EventSequenceFile {
        let folder: DirectoryHandle
        do throws(DirectoryHandle.FailedPath) {
            try DirectoryHandle.makeWithParents(path: stateDirectory)
        } catch {
            throw .cannotOpen(path: error.path, error.errno)
        }
        do throws(Errno) {
            folder = try DirectoryHandle.open(path: stateDirectory).subdirectory(named: "event-ids", making: true, permissions: 0o700)
        } catch {
            throw .cannotOpen(path: stateDirectory + "/event-ids", error)
        }
        let fileName = DirectoryHandle.entryName(for: name)
        let path = folder.path + "/" + fileName
        var first: UInt64 = 1
        do throws(Errno) {
            if let held = open.withLock({ $0[folder.path + "/" + fileName]?.file }) { return held }
            let file = try folder.openRegularFile(named: fileName)
            let text = String(decoding: try file.read(upTo: 64), as: UTF8.self).filter { !$0.isWhitespace }
            if let stored = UInt64(text), stored > 0 {
                first = stored
            } else {
                // Unreadable: start where no earlier run can have been.
                first = clockMilliseconds()
                warn("event ids: \(path) holds no number; numbering goes on from \(first)")
            }
        } catch where error.rawValue == ENOENT {
            first = firstWhenNew
        } catch {
            throw .cannotOpen(path: path, error)
        }
        return open.withLock { open in
            if let held = open[path]?.file { return held }
            let sequence = EventSequenceFile(folder: folder, name: fileName, path: path, first: first, warn: warn)
            // Reserved now: a run that stops right after its first event leaves it accounted for.
            sequence.state.withLock { sequence.reserve(&$0) }
            open = open.filter { $0.value.file != nil }
            open[path] = Weak(sequence)
            return sequence
        }
    }

    private final class Weak: Sendable {
        weak let file: EventSequenceFile?
        init(_ file: EventSequenceFile) { self.file = file }
    }

    /// The files open in this process, by path.
    private static let open = Mutex<[String: Weak]>([:])

    /// The wall clock in milliseconds: past any number a series counted one by one can have reached.
    public static func clockMilliseconds() -> UInt64 {
        let now = WallClockTime.now()
        return UInt64(max(1, now.seconds * 1000 + Int64(now.nanoseconds / 1_000_000)))
    }

    private init(folder: DirectoryHandle, name: String, path: String, first: UInt64, warn: @escaping @Sendable (String) -> Void) {
        self.folder = folder
        self.name = name
        self.path = path
        self.warn = warn
        state = Mutex(State(next: first, reservedEnd: first))
    }

    /// The next number, reserving the next block first when this one is used up.
    public func next() -> UInt64 {
        state.withLock { state in
            if state.next >= state.reservedEnd { reserve(&state) }
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Reserves the block from `state.next` on; when the file cannot be written, says so once
    /// (until a write works again) and goes on in memory.
    private func reserve(_ state: inout State) {
        let end = state.next + Self.block
        do throws(Errno) {
            try write(end)
            state.failing = false
        } catch {
            if !state.failing {
                warn("event ids: cannot write \(path) (\(error)); ids may repeat after a restart until it can")
            }
            state.failing = true
        }
        state.reservedEnd = end
    }

    /// Makes `end` the file's number: a new file, synced, renamed over the old, the folder synced.
    private func write(_ end: UInt64) throws(Errno) {
        let temporary = name + ".new"
        try? folder.removeRegularFile(named: temporary)
        let file = try folder.createFile(named: temporary, permissions: 0o600)
        try file.writeAll(Array((String(end) + "\n").utf8))
        try file.sync()
        try file.close()
        try folder.rename(temporary, to: name)
        try folder.sync()
    }
}

/// Why a camera's event numbering could not be opened.
public enum EventSequenceError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, Errno)
    case cannotWrite(path: String, Errno)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let errno): return "cannot open \(path): \(errno)"
        case .cannotWrite(let path, let errno): return "cannot write \(path): \(errno)"
        }
    }
}
