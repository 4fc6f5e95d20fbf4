import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Writes a JPEG snapshot for each `code`, `face_enter` and presence-on event (`--snapshots DIR`):
/// the frame the event was decided on, in colour where the input sends colour, with the event's
/// objects outlined and labelled (and a clean copy on request).
///
/// Names sort by time and name the event (`SnapshotFileName`); each file is written under a
/// temporary name, then renamed, so a reader never sees half a picture. Only the newest `keep`
/// snapshots stay. Writing happens on a queue of its own with at most `maximumPending` waiting:
/// a slow or full disk costs snapshots (counted as failed, with a warning), never detection time.
public final class SnapshotWriter: EventSink, SnapshotNaming, @unchecked Sendable {
    public struct Options: Sendable {
        /// Outlines and labels drawn on the picture.
        public var drawsBoxes = true
        /// Also writes the picture as the input sent it (`<name>.clean.jpg`).
        public var writesCleanCopy = false
        /// Snapshots kept; older ones are deleted. At least 1.
        public var keep = 1000
        public init() {}
    }

    public let directory: String
    public let options: Options
    /// Snapshots waiting to be written, at most; past it, new ones fail as busy.
    public static let maximumPending = 3

    private let queue = DispatchQueue(label: "lookout.snapshots", qos: .utility)
    private let diagnostics: @Sendable (String) -> Void
    private let renderer = PictureRenderer(quality: 90) // writer queue
    private var kept: [String] = [] // writer queue: names on disk, oldest first

    private struct State {
        var pending = 0
        var statistics = StatisticsSnapshot.SnapshotStatistics()
        var namesInFrame: (sequence: UInt64, count: Int)?
        /// The cause last warned about: a failure with the same cause is counted, not said again.
        var warnedCause: String?
        var onWritten: (@Sendable (String, [UInt8]) -> Void)?
    }
    private let state = Locked(State())

    /// Prepares `directory` (made when missing). A directory that cannot be made or read is not an
    /// error here: each snapshot then fails with a warning, and detection goes on.
    public init(directory: String, options: Options = Options(), diagnostics: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        var options = options
        options.keep = max(1, options.keep)
        self.options = options
        self.diagnostics = diagnostics
        queue.async { [self] in
            if directory.withPlatformPath({ mkdir($0, 0o755) }) != 0, Errno.current.rawValue != EEXIST {
                let cause = Errno.current
                warnOnce("cannot make \(directory): \(cause)", cause: cause.description)
                return
            }
            kept = existingSnapshots()
            prune()
        }
    }

    /// Called with each snapshot's name and JPEG bytes once it is on disk (MQTT publishes it).
    public func setWrittenHandler(_ handler: @escaping @Sendable (String, [UInt8]) -> Void) {
        state.withLock { $0.onWritten = handler }
    }

    // MARK: SnapshotNaming (pipeline queue)

    public func snapshotName(for event: DetectionEvent, frame: AnalysedFrame) -> String? {
        guard Self.takesSnapshot(of: event) else { return nil }
        guard frame.picture != nil else {
            countFailure("no picture buffer was free for frame \(frame.sequence)", cause: nil)
            return nil
        }
        return state.withLock { state in
            // Events of one frame are numbered in the order they were decided, so names sort as events came.
            if state.namesInFrame?.sequence != frame.sequence { state.namesInFrame = (frame.sequence, 0) }
            state.namesInFrame!.count += 1
            return SnapshotFileName.make(time: frame.wallClockTime, sequence: frame.sequence,
                                         index: state.namesInFrame!.count, kind: event.kind)
        }
    }

    static func takesSnapshot(of event: DetectionEvent) -> Bool {
        switch event {
        case .code, .faceEnter: return true
        case .presence(let change): return change.isPresent
        case .faceLeave, .recording, .recordingFailed: return false
        }
    }

    // MARK: EventSink (pipeline queue)

    public func consume(_ output: PipelineOutput) {
        guard let frame = output.frame, let picture = frame.picture else { return }
        for emitted in output.events {
            guard let name = emitted.snapshot else { continue }
            let admitted = state.withLock { state -> Bool in
                guard state.pending < Self.maximumPending else { return false }
                state.pending += 1
                return true
            }
            guard admitted else {
                countFailure("\(Self.maximumPending) snapshots still being written; \(name) skipped", cause: nil)
                continue
            }
            let overlays = options.drawsBoxes ? Self.overlays(for: emitted.event, in: output.objects) : []
            queue.async { [self] in
                write(name: name, picture: picture, overlays: overlays)
                state.withLock { $0.pending -= 1 }
            }
        }
    }

    /// What a snapshot outlines: the code read, the face that entered, or every face for presence.
    static func overlays(for event: DetectionEvent, in objects: [MetadataObject]) -> [PictureRenderer.Overlay] {
        switch event {
        case .code(let code): return [PictureRenderer.Overlay(code)]
        case .faceEnter(let face): return [PictureRenderer.Overlay(face)]
        case .presence: return objects.filter { $0.type == .face }.map(PictureRenderer.Overlay.init)
        case .faceLeave, .recording, .recordingFailed: return []
        }
    }

    public func finish() {
        queue.sync {}
    }

    public func report(into snapshot: inout StatisticsSnapshot) {
        snapshot.snapshots = state.withLock { $0.statistics }
    }

    // MARK: Writing (writer queue)

    private func write(name: String, picture: FramePicture, overlays: [PictureRenderer.Overlay]) {
        do {
            let jpeg = try renderer.jpeg(of: picture, overlays: overlays)
            try writeFile(name, jpeg)
            if options.writesCleanCopy {
                try writeFile(SnapshotFileName.cleanCopy(of: name), overlays.isEmpty ? jpeg : try renderer.jpeg(of: picture))
            }
            kept.append(name)
            prune()
            let (handler, recovered): ((@Sendable (String, [UInt8]) -> Void)?, Bool) = state.withLock { state in
                let recovered = state.warnedCause != nil
                state.warnedCause = nil
                state.statistics.written += 1
                state.statistics.lastError = nil
                return (state.onWritten, recovered)
            }
            if recovered { diagnostics("snapshots: writing to \(directory) again") }
            handler?(name, jpeg)
        } catch let error as SnapshotError {
            countFailure(error.description, cause: error.cause)
        } catch {
            countFailure("cannot encode a snapshot: \(error)", cause: "\(error)")
        }
    }

    private struct SnapshotError: Error, CustomStringConvertible {
        var description: String
        /// What went wrong, without where (errno's text): repeated causes are said once.
        var cause: String
    }

    /// Writes `bytes` to `.name.tmp`, then renames it to `name`.
    private func writeFile(_ name: String, _ bytes: [UInt8]) throws {
        let path = directory + "/" + name
        let temporary = directory + "/." + name + ".tmp"
        let fd = temporary.withPlatformPath { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else {
            let error = Errno.current
            throw SnapshotError(description: "cannot write to \(directory): \(error)", cause: error.description)
        }
        var written = 0
        var failure: Errno?
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n > 0 { written += n; continue }
            if n < 0, Errno.current == .interrupted { continue }
            failure = n < 0 ? Errno.current : Errno(rawValue: ENOSPC)
            break
        }
        if close(fd) != 0, failure == nil { failure = Errno.current }
        if let failure {
            _ = temporary.withPlatformPath { unlink($0) }
            throw SnapshotError(description: "cannot write to \(directory): \(failure)", cause: failure.description)
        }
        let renamed = temporary.withPlatformPath { from in path.withPlatformPath { to in rename(from, to) } }
        guard renamed == 0 else {
            let error = Errno.current
            _ = temporary.withPlatformPath { unlink($0) }
            throw SnapshotError(description: "cannot rename snapshots in \(directory): \(error)", cause: error.description)
        }
    }

    /// Snapshot names already in the directory, oldest first (from an earlier run).
    private func existingSnapshots() -> [String] {
        guard let handle = directory.withPlatformPath({ opendir($0) }) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(platformPath: raw.prefix { $0 != 0 })
            }
            if SnapshotFileName.isSnapshot(name) { names.append(name) }
        }
        return names.sorted()
    }

    /// Deletes the oldest snapshots (and their clean copies) beyond `keep`.
    private func prune() {
        guard kept.count > options.keep else { return }
        kept.sort()
        for name in kept.prefix(kept.count - options.keep) {
            _ = (directory + "/" + name).withPlatformPath { unlink($0) }
            _ = (directory + "/" + SnapshotFileName.cleanCopy(of: name)).withPlatformPath { unlink($0) }
        }
        kept.removeFirst(kept.count - options.keep)
    }

    /// Counts a snapshot not written. With a `cause`, warns unless that cause was the last one
    /// warned about (a full disk is said once, not on every event).
    private func countFailure(_ reason: String, cause: String?) {
        state.withLock { state in
            state.statistics.failed += 1
            state.statistics.lastError = reason
        }
        if let cause { warnOnce(reason, cause: cause) }
    }

    private func warnOnce(_ reason: String, cause: String) {
        let isNew = state.withLock { state -> Bool in
            defer { state.warnedCause = cause }
            return state.warnedCause != cause
        }
        if isNew { diagnostics("warning: snapshot not written: \(reason)") }
    }
}
