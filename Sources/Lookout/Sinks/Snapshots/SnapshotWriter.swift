import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Writes a JPEG snapshot for each `code`, `face_enter` and presence-on event (`--snapshots DIR`):
/// the frame the event was decided on, in colour where the input sends colour, with the event's
/// objects outlined and labelled (and a clean copy on request).
///
/// Names sort by time and name the event (`SnapshotFileName`); each file is written under a
/// temporary name, then renamed, so a reader never sees half a picture. Files are made only as
/// new files in the folder's own descriptor, never through a link (`DirectoryHandle`). Only the
/// newest `keep` snapshots stay. Writing happens on a queue of its own with at most
/// `maximumPending` waiting: a slow or full disk costs snapshots (counted as failed, with a
/// warning), never detection time.
///
/// An event line names its snapshot only while the folder works (the first look at it, then the
/// last write, succeeded) and a place in the queue is free for it: after a failure, events are
/// still written, unnamed, until one succeeds and lines name them again. A named snapshot whose
/// write then fails (the disk filled meanwhile) is named in a warning.
public final class SnapshotWriter: EventSink, SnapshotNaming, Sendable {
    public struct Options: Sendable {
        /// Outlines and labels drawn on the picture.
        public var drawsBoxes = true
        /// Also writes the picture as the input sent it (`<name>.clean.jpg`).
        public var writesCleanCopy = false
        /// Snapshots kept; older ones are deleted. At least 1.
        public var keep = 1000
        /// The events that take a snapshot.
        public var triggers = Set(SnapshotTrigger.allCases)
        public init() {}
    }

    public let directory: Folder
    public let options: Options
    /// Snapshots waiting to be written, at most; past it, new ones fail as busy.
    public static let maximumPending = 3
    /// Temporary names tried for one snapshot (`.NAME.tmp`, `.NAME.2.tmp`, ...) when some are taken.
    static let temporaryAttempts = 8

    private let queue = DispatchQueue(label: "lookout.snapshots", qos: .utility)
    private let diagnostics: @Sendable (String) -> Void
    /// The writer queue's: its JPEG encoder for clean copies, and the snapshots on disk, oldest first.
    private let renderer = Locked(PictureRenderer(quality: SnapshotPicture.quality))
    private let kept = Locked<[String]>([])

    private struct State {
        var pending = 0
        var written = 0
        var failed = 0
        /// Why the last write failed, while the failure lasts.
        var lastError: String?
        var namesInFrame: (sequence: UInt64, count: Int)?
        /// The cause last warned about: a failure with the same cause is counted, not said again.
        var warnedCause: String?
        /// The first look at the folder, then the last write, succeeded: lines may name snapshots.
        var folderWorks = false
    }
    private let state = Locked(State())

    /// Prepares `directory` (made when missing) and looks whether it can be written. A directory
    /// that cannot be made or written is not an error here: each snapshot then fails with a
    /// warning, event lines name none, and detection goes on.
    public init(directory: Folder, options: Options = Options(), diagnostics: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        var options = options
        options.keep = max(1, options.keep)
        self.options = options
        self.diagnostics = diagnostics
        do throws(Errno) {
            try directory.open(making: true).checkWritable()
            state.withLock { $0.folderWorks = true }
        } catch {
            warnOnce("cannot write to \(directory): \(error)", cause: error.description)
        }
        queue.async { [self] in
            let existing = existingSnapshots()
            kept.withLock { $0 = existing }
            prune()
        }
    }

    // MARK: SnapshotNaming (pipeline queue)

    /// The frame's picture with the event's objects outlined (unless `drawsBoxes` is off), and
    /// the file's name, its place in the queue taken, when the folder works and a place is free.
    public func snapshot(for event: DetectionEvent, frame: AnalysedFrame,
                         objects: [MetadataObject]) -> (name: String?, picture: SnapshotPicture)? {
        guard takesSnapshot(of: event) else { return nil }
        guard let picture = frame.picture else {
            countFailure("no picture buffer was free for frame \(frame.sequence)", cause: nil)
            return nil
        }
        let name = state.withLock { state -> String? in
            guard state.folderWorks, state.pending < Self.maximumPending else { return nil }
            state.pending += 1
            return Self.nextName(&state, for: event, frame: frame)
        }
        return (name, SnapshotPicture(picture: picture, overlays: options.drawsBoxes ? Self.overlays(for: event, in: objects) : []))
    }

    func takesSnapshot(of event: DetectionEvent) -> Bool {
        switch event {
        case .code: return options.triggers.contains(.code)
        case .faceEnter: return options.triggers.contains(.faceEnter)
        case .presence(let change): return change.isPresent && options.triggers.contains(.presence)
        case .faceLeave, .recording, .recordingFailed: return false
        }
    }

    /// Events of one frame are numbered in the order they were decided, so names sort as events came.
    private static func nextName(_ state: inout State, for event: DetectionEvent, frame: AnalysedFrame) -> String {
        if state.namesInFrame?.sequence != frame.sequence { state.namesInFrame = (frame.sequence, 0) }
        state.namesInFrame!.count += 1
        return SnapshotFileName.make(time: frame.wallClockTime, sequence: frame.sequence,
                                     index: state.namesInFrame!.count, kind: event.kind)
    }

    // MARK: EventSink (pipeline queue)

    public func consume(_ output: PipelineOutput) {
        guard let frame = output.frame else { return }
        for emitted in output.events {
            guard let snapshot = emitted.snapshotPicture else { continue }
            // A named snapshot has its place already; an unnamed one (the folder failing) is
            // written if there is room, to find out when the folder works again.
            let name = emitted.snapshot ?? state.withLock { state -> String? in
                guard state.pending < Self.maximumPending else { return nil }
                state.pending += 1
                return Self.nextName(&state, for: emitted.event, frame: frame)
            }
            guard let name else {
                countFailure("\(Self.maximumPending) snapshots still being written; a \(emitted.event.kind) event's skipped", cause: nil)
                continue
            }
            let named = emitted.snapshot != nil
            queue.async { [self] in
                write(name: name, named: named, snapshot: snapshot)
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

    /// `snapshots`: written, failed, and why the last one failed while failures last.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let (written, failed, lastError) = state.withLock { ($0.written, $0.failed, $0.lastError) }
        var fields = [StatisticsField("written", .integer(written)), StatisticsField("failed", .integer(failed))]
        if let lastError { fields.append(StatisticsField("last_error", .string(lastError))) }
        return StatisticsSection(
            name: "snapshots", fields: fields,
            summary: StatisticsSection.summary("snapshots", written, "written", failed: failed),
            metrics: [StatisticsMetric("lookout_snapshots_written_total", help: "Snapshots written.", .counter(written)),
                      StatisticsMetric("lookout_snapshots_failed_total",
                                       help: "Snapshots not written (unwritable directory, full disk, busy).", .counter(failed))])
    }

    // MARK: Writing (writer queue)

    private func write(name: String, named: Bool, snapshot: SnapshotPicture) {
        let jpeg: [UInt8]
        let clean: [UInt8]?
        do throws(MediaError) {
            jpeg = try snapshot.jpeg()
            clean = !options.writesCleanCopy ? nil : snapshot.overlays.isEmpty ? jpeg
                : try renderer.withLock { (renderer: inout PictureRenderer) throws(MediaError) in try renderer.jpeg(of: snapshot.picture) }
        } catch {
            countFailure("cannot encode a snapshot: \(error)", cause: "\(error)")
            return
        }
        do throws(Errno) {
            let folder = try directory.open(making: true)
            try writeFile(name, jpeg, in: folder)
            if let clean { try writeFile(SnapshotFileName.cleanCopy(of: name), clean, in: folder) }
        } catch {
            state.withLock { $0.folderWorks = false }
            let reason = "cannot write to \(directory): \(error)"
            if named {
                // Its event line is out: say which snapshot it named that will not be there.
                countFailure(reason, cause: nil)
                diagnostics("warning: snapshot \(name), named in an event line, was not written: \(reason)")
                state.withLock { $0.warnedCause = error.description }
            } else {
                countFailure(reason, cause: error.description)
            }
            return
        }
        kept.withLock { $0.append(name) }
        prune()
        let recovered = state.withLock { state in
            let recovered = state.warnedCause != nil
            state.warnedCause = nil
            state.folderWorks = true
            state.written += 1
            state.lastError = nil
            return recovered
        }
        if recovered { diagnostics("snapshots: writing to \(directory) again") }
    }

    /// Writes `bytes` to a new temporary file, then renames it to `name`.
    private func writeFile(_ name: String, _ bytes: [UInt8], in folder: DirectoryHandle) throws(Errno) {
        let (temporary, file) = try createTemporary(for: name, in: folder)
        do throws(Errno) {
            try file.writeAll(bytes)
            try file.close()
            try folder.rename(temporary, to: name)
        } catch {
            try? folder.remove(named: temporary)
            throw error
        }
    }

    /// `.NAME.tmp`, made new: when the name is taken (left by a crash, or planted), the next of
    /// `.NAME.2.tmp`, `.NAME.3.tmp`, ...; whatever has the name is never opened or overwritten.
    private func createTemporary(for name: String, in folder: DirectoryHandle) throws(Errno) -> (String, FileDescriptor) {
        var attempt = 1
        while true {
            let temporary = "." + name + (attempt > 1 ? ".\(attempt)" : "") + ".tmp"
            do throws(Errno) {
                return (temporary, try folder.createFile(named: temporary))
            } catch {
                guard error.rawValue == EEXIST, attempt < Self.temporaryAttempts else { throw error }
                attempt += 1
            }
        }
    }

    /// Snapshot names already in the directory, oldest first (from an earlier run): regular files only.
    private func existingSnapshots() -> [String] {
        guard let folder = try? directory.open(), let names = try? folder.names() else { return [] }
        return names.filter { SnapshotFileName.isSnapshot($0) && (try? folder.status(named: $0).kind) == .regular }.sorted()
    }

    /// Deletes the oldest snapshots (and their clean copies) beyond `keep`: regular files only.
    private func prune() {
        let keep = options.keep
        let old: [String] = kept.withLock { kept in
            guard kept.count > keep else { return [] }
            kept.sort()
            defer { kept.removeFirst(kept.count - keep) }
            return Array(kept.prefix(kept.count - keep))
        }
        guard !old.isEmpty else { return }
        let folder = try? directory.open()
        for name in old {
            try? folder?.removeRegularFile(named: name)
            try? folder?.removeRegularFile(named: SnapshotFileName.cleanCopy(of: name))
        }
    }

    /// Counts a snapshot not written. With a `cause`, warns unless that cause was the last one
    /// warned about (a full disk is said once, not on every event).
    private func countFailure(_ reason: String, cause: String?) {
        state.withLock { state in
            state.failed += 1
            state.lastError = reason
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
