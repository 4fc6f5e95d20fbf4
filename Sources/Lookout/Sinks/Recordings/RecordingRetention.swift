/// Keeps a recording directory within its limits (`--record-keep`, `--record-max-age`): the
/// oldest clips are deleted first. Only regular files named as clips are counted or deleted
/// (looked at without following a link, `fstatat`, then `unlinkat`): a link named like a clip
/// is neither counted nor followed. The newest clip on disk, and the clips the recorder names
/// (the one being written, the one just finished), are never deleted, whatever they weigh.
public struct RecordingRetention: Sendable, Equatable {
    /// Total bytes of clips to keep at most; nil for no limit.
    public var maximumBytes: Int64?
    /// Clips older than this (by modification time) are deleted; nil for no limit.
    public var maximumAge: Double?

    public init(maximumBytes: Int64? = nil, maximumAge: Double? = nil) {
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
    }

    /// A clip on disk.
    public struct Clip: Sendable, Equatable {
        public var name: String
        public var bytes: Int64
        /// Modification time, seconds since the epoch.
        public var modified: Double
    }

    /// The clips in `folder`, oldest first: regular files named as clips.
    package static func clips(in folder: DirectoryHandle) -> [Clip] {
        guard let names = try? folder.names() else { return [] }
        var clips: [Clip] = []
        for name in names where RecordingFileName.isRecording(name) {
            guard let status = try? folder.status(named: name), status.kind == .regular else { continue }
            clips.append(Clip(name: name, bytes: status.size, modified: status.modified))
        }
        return clips.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// The clips to delete, oldest first: never the newest (the last of `clips`) nor one named in
    /// `keeping`, whatever they weigh.
    public func clipsToDelete(_ clips: [Clip], now: Double, keeping: Set<String>) -> [Clip] {
        var total = clips.reduce(Int64(0)) { $0 + $1.bytes }
        var deleted: [Clip] = []
        for clip in clips.dropLast() where !keeping.contains(clip.name) {
            let tooOld = maximumAge.map { now - clip.modified > $0 } ?? false
            let tooMuch = maximumBytes.map { total > $0 } ?? false
            guard tooOld || tooMuch else { continue }
            deleted.append(clip)
            total -= clip.bytes
        }
        return deleted
    }

    /// Deletes what the limits leave no room for in `folder`, never the clips named in
    /// `keeping`; returns the names deleted.
    @discardableResult
    public func apply(to folder: Folder, keeping: Set<String>) -> [String] {
        guard maximumBytes != nil || maximumAge != nil, let handle = try? folder.open() else { return [] }
        let now = Double(WallClockTime.now().seconds)
        var removed: [String] = []
        for clip in clipsToDelete(Self.clips(in: handle), now: now, keeping: keeping) {
            do throws(Errno) {
                try handle.removeRegularFile(named: clip.name)
                removed.append(clip.name)
            } catch {
                continue // gone meanwhile, or no longer a regular file: left alone
            }
        }
        return removed
    }
}
