import Dispatch
import Synchronization

/// Records the session's frames to Matroska files (AVCaptureMovieFileOutput): MJPEG frames go in
/// exactly as the camera or file sent them, never decoded or re-encoded; raw frames are
/// compressed with TurboJPEG first. Frame times are the sample buffers' presentation times, so a
/// variable frame rate and dropped frames stay exact in the file.
///
/// The output keeps the newest frames as JPEG bytes in a ring of `frameRingCapacity` bytes, which
/// is what lets a recording start `preRollDuration` before the call (a Lookout addition: 0, the
/// AVFoundation behaviour, starts with the next frame), and what lets the writer, on a queue of
/// its own, fall behind a slow disk without ever slowing capture: a writer so late that frames
/// leave the ring unwritten counts them in `RecordedMovie.framesLost`. The output takes no frame
/// while it neither records nor keeps a pre-roll, and never makes the session decode one.
///
/// Every `movieFragmentInterval` of stream time the file is synced: SIGKILL or power loss leaves a
/// file that ffprobe and ffplay read to within that much of the end (it lacks only its index and
/// duration, written at the end). A disk that fills ends the recording with an error and the
/// output goes on; the next `startRecording` tries again.
// @unchecked: writer state is the writer queue's, the ring is under `ringLock`, the rest in locks and atomics.
public final class MovieFileOutput: CaptureOutput, @unchecked Sendable {
    /// The frame ring's size unless given: 64 MiB holds about 10 s of 720p MJPEG at 30 fps
    /// (some 200 kB a frame), more than the default pre-roll needs at 1080p.
    public static let defaultFrameRingCapacity = 64 << 20
    /// Stream time the ring keeps beyond the pre-roll, so that a recording started from a
    /// delegate callback (the next segment) finds the frames since the last one ended.
    static let ringSlack = MediaTime(seconds: 2)

    public let frameRingCapacity: Int

    private let shared = Locked(Shared())
    private let ring: CompressedFrameRing // only under `ringLock`
    private let ringLock = Locked(())
    private let writerQueue = DispatchQueue(label: "lookout.movie-file-output", qos: .utility)
    private let compressQueue = DispatchQueue(label: "lookout.movie-file-output.compress", qos: .userInitiated)
    /// Raw frames being compressed or waiting for it, at most 2.
    private let compressSlots = DispatchSemaphore(value: 2)
    private let pumpScheduled = Atomic<Bool>(false)
    /// Signalled by the writer after writing, for a capture thread waiting on a file input.
    private let writerProgress = DispatchSemaphore(value: 0)
    private let active = Atomic<Bool>(false) // recording or keeping a pre-roll: frames are taken

    // Writer-queue state.
    private var recording: MovieRecording?
    private var scratch: [UInt8] = []
    private let headerReader = JPEGDecoder()
    private let compressor = PictureRenderer(quality: 90) // compress queue

    public init(frameRingCapacity: Int = MovieFileOutput.defaultFrameRingCapacity) {
        self.frameRingCapacity = max(1 << 20, frameRingCapacity)
        ring = CompressedFrameRing(capacity: self.frameRingCapacity, retention: Self.ringSlack)
        super.init()
        shared.withLock { $0.statistics.ringCapacity = self.frameRingCapacity }
    }

    // MARK: Settings

    /// A recording ends by itself (`.maximumDuration`) before a frame that would make it longer.
    public var maxRecordedDuration: MediaTime? {
        get { shared.withLock { $0.settings.maxRecordedDuration } }
        set { shared.withLock { $0.settings.maxRecordedDuration = newValue } }
    }

    /// A recording ends by itself (`.maximumFileSize`) once its file reaches this many bytes; 0 for no limit.
    public var maxRecordedFileSize: Int64 {
        get { shared.withLock { $0.settings.maxRecordedFileSize } }
        set { shared.withLock { $0.settings.maxRecordedFileSize = max(0, newValue) } }
    }

    /// Stream time between syncs of the file to the disk: what a crash or SIGKILL may lose at most.
    public var movieFragmentInterval: MediaTime {
        get { shared.withLock { $0.settings.movieFragmentInterval } }
        set { shared.withLock { $0.settings.movieFragmentInterval = max(MediaTime(seconds: 0.1), newValue) } }
    }

    /// How long before `startRecording(to:recordingDelegate:)` a recording starts: the output then
    /// keeps that much of the stream in its frame ring all the time.
    public var preRollDuration: MediaTime {
        get { shared.withLock { $0.settings.preRollDuration } }
        set {
            let value = max(.zero, newValue)
            shared.withLock { $0.settings.preRollDuration = value }
            ringLock.withLock { _ in ring.retention = value + Self.ringSlack }
            updateActive()
        }
    }

    // MARK: State

    public var isRecording: Bool { shared.withLock { $0.isRecording } }
    /// The file being written.
    public var outputFilePath: String? { shared.withLock { $0.path } }
    public var recordedDuration: MediaTime { shared.withLock { $0.recordedDuration } }
    public var recordedFileSize: Int64 { shared.withLock { $0.recordedFileSize } }

    public var statistics: Statistics {
        var statistics = shared.withLock { $0.statistics }
        ringLock.withLock { _ in
            statistics.ringBytes = ring.bytes
            statistics.ringBytesResident = ring.touched
        }
        return statistics
    }

    // MARK: Recording

    /// Starts recording to `path` (a new file: whatever has the name already, a link included,
    /// is never opened or overwritten): from `preRollDuration` before the newest frame when a
    /// pre-roll is kept, else from the next frame. A recording in progress ends first
    /// (`.stopped`), and the new one takes over from the next frame it has not written, so that
    /// files follow each other without a gap.
    public func startRecording(to path: String, recordingDelegate delegate: any FileOutputRecordingDelegate) {
        let preRoll = preRollDuration
        let first: UInt64 = ringLock.withLock { _ in
            guard preRoll > .zero, let newest = ring.newest else { return ring.nextID }
            return ring.firstID(presentedFrom: newest.presentationTime - preRoll)
        }
        let (folder, name) = Self.split(path)
        begin(folder: folder, name: name, first: first, delegate: delegate)
    }

    /// Starts recording to `path` from the first frame presented at or after `time` that the ring
    /// still holds (Lookout: a clip starting before the event that asked for it).
    public func startRecording(to path: String, from time: MediaTime, recordingDelegate delegate: any FileOutputRecordingDelegate) {
        let (folder, name) = Self.split(path)
        startRecording(in: folder, named: name, from: time, recordingDelegate: delegate)
    }

    /// Starts recording to the new file `name` in `folder` (made relative to the folder's
    /// descriptor, `O_EXCL|O_NOFOLLOW`) from the first frame presented at or after `time`; the
    /// delegate hears of it as `folder/name`.
    public func startRecording(in folder: Folder, named name: String, from time: MediaTime,
                               recordingDelegate delegate: any FileOutputRecordingDelegate) {
        let first = ringLock.withLock { _ in ring.firstID(presentedFrom: time) }
        begin(folder: folder, name: name, first: first, delegate: delegate)
    }

    /// A path as its folder (the path the caller named, links followed) and the file's name.
    private static func split(_ path: String) -> (Folder, String) {
        guard let slash = path.lastIndex(of: "/") else { return (Folder(path: "."), path) }
        let directory = String(path[..<slash])
        return (Folder(path: directory.isEmpty ? "/" : directory), String(path[path.index(after: slash)...]))
    }

    /// Ends the recording after the frames already received; the delegate hears when the file is complete.
    public func stopRecording() {
        writerQueue.async { [self] in
            pump()
            finish(.stopped)
        }
    }

    /// Ends the recording before the first frame presented at or after `time` (Lookout: a
    /// post-roll). Nil cancels an end set earlier.
    public func stopRecording(at time: MediaTime?) {
        writerQueue.async { [self] in
            recording?.endTime = time
            pump()
        }
    }

    private func begin(folder: Folder, name: String, first: UInt64, delegate: any FileOutputRecordingDelegate) {
        let path = folder.description + "/" + name
        shared.withLock {
            $0.requests += 1
            $0.isRecording = true
        }
        ringLock.withLock { _ in ring.firstUnwritten = min(ring.firstUnwritten ?? first, first) }
        updateActive()
        writerQueue.async { [self] in
            if recording != nil {
                pump()
                finish(.stopped)
            }
            recording = MovieRecording(path: path, folder: folder, name: name, delegate: delegate, cursor: first,
                                       movie: RecordedMovie(path: path, reason: .stopped))
            shared.withLock { state in
                state.path = path
                state.recordedDuration = .zero
                state.recordedFileSize = 0
            }
            ringLock.withLock { _ in ring.firstUnwritten = first }
            pump()
        }
    }

    /// Takes frames while recording or keeping a pre-roll.
    private func updateActive() {
        let isActive = shared.withLock { $0.settings.preRollDuration > .zero || $0.requests > 0 }
        active.store(isActive, ordering: .relaxed)
    }

    // MARK: Session contract (capture thread)

    /// Frames as the input sent them, never decoded.
    override public var requirements: OutputRequirements { OutputRequirements(takesSourceFrames: true) }

    override func deliverSourceFrame(_ frame: SourceFrame, pictures: BufferPool, wait: Bool) {
        guard active.load(ordering: .relaxed) else { return }
        switch frame.payload {
        case .jpeg(let bytes):
            if wait { waitForWriter() }
            let appended = ringLock.withLock { _ in
                (ring.append(bytes, sequence: frame.sequence, presentationTime: frame.presentationTime,
                             wallClockTime: frame.wallClockTime, width: frame.format.width, height: frame.format.height) != nil,
                 ring.bytes)
            }
            afterAppend(appended)
        case .raw(let bytes, let bytesPerRow):
            guard compressSlots.wait(timeout: wait ? .distantFuture : .now()) == .success else {
                countLost()
                return
            }
            guard let picture = FramePicture.copy(bytes, width: frame.format.width, height: frame.format.height,
                                                  pixelFormat: frame.format.pixelFormat, bytesPerRow: bytesPerRow,
                                                  into: pictures) else {
                compressSlots.signal()
                countLost()
                return
            }
            let (sequence, time, wallClock) = (frame.sequence, frame.presentationTime, frame.wallClockTime)
            compressQueue.async { [self] in
                defer { compressSlots.signal() }
                guard let jpeg = try? compressor.jpeg(of: picture) else {
                    countLost()
                    return
                }
                let appended = jpeg.withUnsafeBytes { bytes in
                    ringLock.withLock { _ in
                        (ring.append(bytes, sequence: sequence, presentationTime: time, wallClockTime: wallClock,
                                     width: picture.width, height: picture.height) != nil, ring.bytes)
                    }
                }
                shared.withLock { $0.statistics.framesCompressed += 1 }
                afterAppend(appended)
            }
        case .corrupt:
            break
        }
    }

    override func inputWasInterrupted() {
        writerQueue.async { [self] in
            pump()
            finish(.cameraLost)
            // The camera's clock may start afresh: frames from before the loss are no pre-roll.
            ringLock.withLock { _ in ring.removeAll() }
        }
    }

    override func drain() {
        compressQueue.sync {}
        writerQueue.sync {
            pump()
            finish(.sessionStopped)
            ringLock.withLock { _ in ring.removeAll() }
        }
    }

    /// Counts the frame and wakes the writer when a recording waits for frames.
    private func afterAppend(_ result: (appended: Bool, ringBytes: Int)) {
        let recording: Bool = shared.withLock { state in
            state.statistics.ringBytesPeak = max(state.statistics.ringBytesPeak, result.ringBytes)
            if !result.appended, state.requests > 0 { state.statistics.framesLost += 1 }
            return state.requests > 0
        }
        guard recording else { return }
        if !pumpScheduled.exchange(true, ordering: .acquiringAndReleasing) {
            writerQueue.async { [self] in
                pumpScheduled.store(false, ordering: .releasing)
                pump()
            }
        }
    }

    private func countLost() {
        shared.withLock { if $0.requests > 0 { $0.statistics.framesLost += 1 } }
    }

    /// A file read as fast as possible waits while the writer has half the ring to write, rather
    /// than lose frames to a slow disk.
    private func waitForWriter() {
        while ringLock.withLock({ _ in ring.unwrittenBytes > frameRingCapacity / 2 }) {
            _ = writerProgress.wait(timeout: .now() + .milliseconds(50))
        }
    }

    // MARK: Writing (writer queue)

    /// Writes the frames the current recording has not written yet.
    private func pump() {
        while var current = recording {
            let next: (frame: CompressedFrameRing.Frame, lost: Int)? = ringLock.withLock { _ in
                var lost = 0
                if let oldest = ring.oldest, current.cursor < oldest.id {
                    lost = Int(oldest.id - current.cursor)
                    current.cursor = oldest.id
                }
                guard let frame = ring.frame(current.cursor) else { return nil }
                ring.copy(frame, into: &scratch)
                return (frame, lost)
            }
            guard let (frame, lost) = next else { break }
            if lost > 0, current.file != nil {
                current.movie.framesLost += lost
                shared.withLock { $0.statistics.framesLost += lost }
            }
            recording = current
            if let end = current.endTime, frame.presentationTime >= end {
                finish(.stopped)
                break
            }
            let settings = shared.withLock { $0.settings }
            if current.file != nil, let maximum = settings.maxRecordedDuration,
               frame.presentationTime.nanoseconds - current.movie.firstPresentationTime.nanoseconds + current.lastDelta * 1_000_000
                > maximum.nanoseconds {
                finish(.maximumDuration)
                break
            }
            do throws(RecordingError) {
                try write(frame, into: &current, settings: settings)
            } catch {
                recording = current
                finish(.failed, error: error)
                break
            }
            current.cursor += 1
            recording = current
            let cursor = current.cursor
            ringLock.withLock { _ in ring.firstUnwritten = cursor }
            shared.withLock { state in
                state.recordedDuration = current.movie.duration
                state.recordedFileSize = current.file?.bytesWritten ?? 0
                state.statistics.framesWritten += 1
            }
            if settings.maxRecordedFileSize > 0, (current.file?.bytesWritten ?? 0) >= settings.maxRecordedFileSize {
                finish(.maximumFileSize)
                break
            }
        }
        writerProgress.signal()
    }

    /// Writes `frame` (its bytes in `scratch`) into the recording, telling its delegate when the
    /// file is started with it.
    private func write(_ frame: CompressedFrameRing.Frame, into current: inout MovieRecording, settings: Settings) throws(RecordingError) {
        let failure: RecordingError? = scratch.withUnsafeBytes { buffer in
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<frame.length])
            do throws(RecordingError) {
                if try current.openIfNeeded(for: frame, bytes: bytes, headerReader: headerReader) {
                    current.delegate.fileOutput(self, didStartRecordingTo: current.path, startTime: frame.presentationTime)
                }
                try current.append(frame, bytes: bytes, fragmentInterval: settings.movieFragmentInterval)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Ends the current recording and tells its delegate.
    private func finish(_ reason: RecordingEndReason, error: RecordingError? = nil) {
        guard var current = recording else { return }
        recording = nil
        var error = error
        if current.movie.frameCount == 0 { current.movie = RecordedMovie(path: current.path, reason: reason) }
        current.movie.reason = error == nil ? reason : .failed
        if let file = current.file {
            do throws(RecordingError) {
                try file.finish(abandon: error != nil)
            } catch let failure {
                if error == nil { error = failure }
                current.movie.reason = .failed
            }
            current.movie.fileSize = file.bytesWritten
            if current.movie.frameCount == 0, error != nil { file.remove() } // nothing usable: no empty file left
        }
        let remaining: Int = shared.withLock { state in
            state.requests = max(0, state.requests - 1)
            state.isRecording = state.requests > 0
            if state.requests == 0 { state.path = nil }
            if error == nil { state.statistics.recordingsFinished += 1 } else { state.statistics.recordingsFailed += 1 }
            return state.requests
        }
        if remaining == 0 { ringLock.withLock { _ in ring.firstUnwritten = nil } }
        updateActive()
        current.delegate.fileOutput(self, didFinishRecordingTo: current.path, movie: current.movie, error: error)
    }
}
