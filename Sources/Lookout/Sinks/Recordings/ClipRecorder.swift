import Dispatch

/// Records clips of what happened around events (`--record DIR`), with its `MovieFileOutput`
/// (`output`), which whoever builds the pipeline adds to its session:
///
/// - `presence`: a clip per presence session, from `preRoll` before presence turned on to
///   `postRoll` after the last face was seen; a presence that starts again within the post-roll
///   continues the same clip;
/// - `codes`: a clip per code event, from `preRoll` before to `postRoll` after; codes read within
///   the post-roll extend it;
/// - `always`: continuous segments of `segmentDuration`, one following the other without a gap.
///
/// Each finished clip is a `recording` event handed to `onEvent` (an `EventSource`: the pipeline
/// the recorder is added to takes it in, and every sink gets it: standard output, MQTT, hooks,
/// the event stream); a clip that cannot be made or is cut short (a full disk, the directory gone)
/// is a `recording_failed` event with the cause and a warning, detection goes on, and the next
/// clip tries again (making the directory afresh). The recorder adds itself nowhere: the builder
/// adds it, before the pipeline runs and before the other sinks, so that it sees events first:
///
///     let recorder = ClipRecorder(directory: folder, settings: settings, diagnostics: warn)
///     try pipeline.session.addOutput(recorder.output)
///     pipeline.addSink(recorder)
///
/// Clip files are made new in the folder's own
/// descriptor, never through a link (`MovieFileOutput`). After each clip's line has gone to the
/// sinks, `retention` deletes the oldest clips beyond its limits, never the newest, the one just
/// finished or one being written: a `recording` line names a file that is there when it is written.
public final class ClipRecorder: EventSource, FileOutputRecordingDelegate, Sendable {
    public enum Trigger: String, Sendable, CaseIterable {
        case presence, codes, always
    }

    public struct Settings: Sendable {
        public var trigger = Trigger.presence
        public var preRoll = MediaTime(seconds: 5)
        public var postRoll = MediaTime(seconds: 5)
        public var segmentDuration = MediaTime(seconds: 60)
        public var retention = RecordingRetention()
        /// The frame ring's bound (`MovieFileOutput.frameRingCapacity`).
        public var frameRingCapacity = MovieFileOutput.defaultFrameRingCapacity
        public init() {}
    }

    /// After a failed segment (`always`), stream time before the next try.
    public static let segmentRetryDelay = MediaTime(seconds: 5)

    public let directory: Folder
    public let settings: Settings
    public let output: MovieFileOutput
    private let diagnostics: @Sendable (String) -> Void
    private let housekeeping = DispatchQueue(label: "lookout.recordings", qos: .utility)

    private struct Clip {
        var file: String
        var trigger: RecordingTrigger
    }

    private struct State {
        /// The clip being recorded (pipeline queue decides; the output's queue finishes).
        var clip: Clip?
        /// Clips started and not yet finished, by path.
        var started: [String: Clip] = [:]
        var warnedCause: String?
        var lastError: String?
        /// `always`: segments are being recorded; after a failure, not before `retryAfter`.
        var segmentsStarted = false
        var retryAfter: MediaTime?
        var onEvent: (@Sendable (DetectionEvent) -> Void)?
    }
    private let state = Locked(State())

    /// Makes the movie file output (`output`) for `directory`, and looks at what retention allows.
    /// Nothing records until `output` is in a running session and the recorder gets its results.
    public init(directory: Folder, settings: Settings = Settings(), diagnostics: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.settings = settings
        self.diagnostics = diagnostics
        output = MovieFileOutput(frameRingCapacity: settings.frameRingCapacity)
        output.preRollDuration = settings.preRoll
        if settings.trigger == .always { output.maxRecordedDuration = settings.segmentDuration }
        housekeeping.async { [self] in makeDirectory() }
        applyRetention(after: nil)
    }

    /// Where finished clips go, as `recording` and `recording_failed` events (from the output's
    /// queue); nil drops them. Set it before the pipeline runs.
    public var onEvent: (@Sendable (DetectionEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }

    // MARK: Events (pipeline queue)

    public func consume(_ output: PipelineOutput) {
        for emitted in output.events {
            switch emitted.event {
            case .recording(let report), .recordingFailed(let report): applyRetention(after: report.file)
            default: continue
            }
        }
        switch settings.trigger {
        case .always:
            guard let frame = output.frame else { return }
            let due = state.withLock { state -> Bool in
                guard !state.segmentsStarted, state.retryAfter.map({ frame.presentationTime >= $0 }) ?? true else { return false }
                state.segmentsStarted = true
                state.retryAfter = nil
                return true
            }
            if due { start(RecordingTrigger(kind: "always", frame: frame), from: frame.presentationTime) }
        case .presence:
            for emitted in output.events {
                // The camera's presence, not each zone's: a zone's presence lies within it.
                guard case .presence(let change) = emitted.event, change.zone == nil else { continue }
                if change.isPresent {
                    presenceStarted(change, id: emitted.id)
                } else if change.reason != .cameraLost {
                    // The output ends a clip itself when the camera goes (camera_lost).
                    let lastSeen = change.lastSeen ?? change.frame.presentationTime
                    self.output.stopRecording(at: later(lastSeen + settings.postRoll, change.frame.presentationTime))
                }
            }
        case .codes:
            for emitted in output.events {
                guard case .code(let code) = emitted.event else { continue }
                let frame = emitted.event.frame
                let joined = state.withLock { state -> Bool in
                    guard state.clip != nil else { return false }
                    state.clip!.trigger.events += 1
                    return true
                }
                if !joined {
                    start(RecordingTrigger(kind: "code", frame: frame, id: emitted.id, codeType: code.type, codeValue: code.stringValue),
                          from: frame.presentationTime - settings.preRoll)
                }
                self.output.stopRecording(at: frame.presentationTime + settings.postRoll)
            }
        }
    }

    private func presenceStarted(_ change: PresenceChange, id: String?) {
        let joined = state.withLock { state -> Bool in
            guard state.clip != nil else { return false }
            state.clip!.trigger.events += 1
            return true
        }
        if joined {
            output.stopRecording(at: nil) // within the post-roll: the clip goes on
        } else {
            start(RecordingTrigger(kind: "presence", frame: change.frame, id: id), from: change.frame.presentationTime - settings.preRoll)
        }
    }

    private func start(_ trigger: RecordingTrigger, from time: MediaTime) {
        let folder = makeDirectory()
        var attempt = 1
        var name = RecordingFileName.make(time: trigger.frame.wallClockTime, kind: trigger.kind)
        // A name taken by anything (a link included) is passed over; the file is made O_EXCL anyway.
        while (try? folder?.status(named: name)) != nil, attempt < 100 {
            attempt += 1
            name = RecordingFileName.make(time: trigger.frame.wallClockTime, kind: trigger.kind, attempt: attempt)
        }
        let clip = Clip(file: name, trigger: trigger)
        state.withLock { state in
            state.clip = clip
            state.started[directory.description + "/" + name] = clip
        }
        output.startRecording(in: directory, named: name, from: time, recordingDelegate: self)
    }

    // MARK: FileOutputRecordingDelegate (the output's queue)

    public func fileOutput(_ output: MovieFileOutput, didFinishRecordingTo path: String, movie: RecordedMovie,
                           error: RecordingError?) {
        let clip: Clip? = state.withLock { state in
            let clip = state.started.removeValue(forKey: path)
            if state.clip?.file == clip?.file { state.clip = nil }
            state.lastError = error?.description // while failures last
            return clip
        }
        guard let clip else { return }
        if settings.trigger == .always, movie.reason == .maximumDuration {
            // The next segment starts with the frame this one left out.
            var trigger = clip.trigger
            trigger.frame = AnalysedFrame(sequence: movie.lastSequence, presentationTime: movie.lastPresentationTime,
                                          wallClockTime: movie.lastWallClockTime, width: movie.width, height: movie.height)
            start(trigger, from: MediaTime(nanoseconds: movie.lastPresentationTime.nanoseconds + 1))
        } else if settings.trigger == .always, movie.reason == .failed {
            // Try again a little later (a disk with room again, a directory made again), not at
            // every frame.
            state.withLock { state in
                state.segmentsStarted = false
                state.retryAfter = clip.trigger.frame.presentationTime + Self.segmentRetryDelay
            }
        }
        // A clip that failed before its first frame left no file (the output deleted it).
        if movie.frameCount == 0, error == nil { return } // stopped before its first frame: no file
        let report = RecordingReport(file: clip.file, movie: movie, trigger: clip.trigger, error: error)
        if let error {
            let cause = error.errno?.description ?? error.description
            let repeated = state.withLock { state -> Bool in
                defer { state.warnedCause = cause }
                return state.warnedCause == cause
            }
            if !repeated { diagnostics("warning: \(error); detection goes on, the next clip tries again") }
            onEvent?(.recordingFailed(report))
        } else {
            state.withLock { $0.warnedCause = nil }
            onEvent?(.recording(report))
        }
    }

    /// At the start, and once `finished`'s line has gone to the sinks (standard output writes it
    /// as it is handed over): deletes what the limits leave no room for, keeping `finished` and
    /// the clips being written. An earlier clip's line went out before this one's, so a line
    /// never names a file retention already deleted.
    private func applyRetention(after finished: String?) {
        let writingThen = state.withLock { state in state.started.values.map(\.file) }
        housekeeping.async { [self] in
            let writingNow = state.withLock { state in state.started.values.map(\.file) }
            settings.retention.apply(to: directory, keeping: Set(writingThen + writingNow + (finished.map { [$0] } ?? [])))
        }
    }

    /// Lets the last retention pass finish.
    public func finish() {
        housekeeping.sync {}
    }

    // MARK: Statistics

    /// `recordings`: the movie file output's counters and frame ring, whether a clip is being
    /// written, and why the last one failed while failures last.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let statistics = output.statistics
        var fields = [StatisticsField("finished", .integer(statistics.recordingsFinished)),
                      StatisticsField("failed", .integer(statistics.recordingsFailed)),
                      StatisticsField("recording", .bool(output.isRecording)),
                      StatisticsField("frames_written", .integer(statistics.framesWritten)),
                      StatisticsField("frames_lost", .integer(statistics.framesLost)),
                      StatisticsField("ring_bytes", .integer(statistics.ringBytes)),
                      StatisticsField("ring_bytes_peak", .integer(statistics.ringBytesPeak)),
                      StatisticsField("ring_bytes_resident", .integer(statistics.ringBytesResident)),
                      StatisticsField("ring_capacity", .integer(statistics.ringCapacity))]
        if let lastError = state.withLock({ $0.lastError }) { fields.append(StatisticsField("last_error", .string(lastError))) }
        return StatisticsSection(name: "recordings", fields: fields,
                                 summary: StatisticsSection.summary("recordings", statistics.recordingsFinished, "finished",
                                                                    failed: statistics.recordingsFailed))
    }

    // MARK: Files

    /// Makes the directory when it is missing (again). A failure is not said here: the clip's
    /// file then cannot be made, and its `recording_failed` line and warning give the cause.
    @discardableResult
    private func makeDirectory() -> DirectoryHandle? {
        try? directory.open(making: true)
    }

    private func later(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a > b ? a : b }
}
