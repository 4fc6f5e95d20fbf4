#if canImport(Glibc)
import Glibc
#endif

/// Keeps a recording directory within its limits (`--record-keep`, `--record-max-age`): the
/// oldest clips are deleted first. Only files named as clips are counted or deleted; the clip
/// being written never is.
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

    /// The clips in `directory`, oldest first.
    public static func clips(in directory: String) -> [Clip] {
        guard let stream = directory.withPlatformPath({ opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var clips: [Clip] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard RecordingFileName.isRecording(name) else { continue }
            var info = stat()
            guard (directory + "/" + name).withPlatformPath({ stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            clips.append(Clip(name: name, bytes: Int64(info.st_size),
                              modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
        }
        return clips.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// The clips to delete, oldest first, keeping `current` whatever it weighs.
    public func clipsToDelete(_ clips: [Clip], now: Double, current: String?) -> [Clip] {
        var total = clips.reduce(Int64(0)) { $0 + $1.bytes }
        var deleted: [Clip] = []
        for clip in clips where clip.name != current {
            let tooOld = maximumAge.map { now - clip.modified > $0 } ?? false
            let tooMuch = maximumBytes.map { total > $0 } ?? false
            guard tooOld || tooMuch else { continue }
            deleted.append(clip)
            total -= clip.bytes
        }
        return deleted
    }

    /// Deletes what the limits leave no room for; returns the names deleted.
    @discardableResult
    public func apply(to directory: String, current: String?) -> [String] {
        guard maximumBytes != nil || maximumAge != nil else { return [] }
        let now = Double(WallClockTime.now().seconds)
        var removed: [String] = []
        for clip in clipsToDelete(Self.clips(in: directory), now: now, current: current)
        where (directory + "/" + clip.name).withPlatformPath({ unlink($0) }) == 0 {
            removed.append(clip.name)
        }
        return removed
    }
}
