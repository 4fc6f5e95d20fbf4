import Dispatch
import Synchronization

/// Finds machine-readable codes (ZBar, zxing-cpp) and faces (OpenCV Haar cascade) in a session's
/// frames (AVCaptureMetadataOutput).
///
/// `availableMetadataObjectTypes` is known once the output is in a session; `metadataObjectTypes`
/// must be a subset of it. Objects centred in one of the `regions`' masks are never reported; the
/// rest carry their zone. The looking is done by analyzers (`FrameAnalyzer`, registered in
/// `makeAnalyzers`) on the luma plane, within `rectOfInterest`, in two serial lanes of jobs on
/// threads shared with other outputs (`detectorPool`): motion and codes on every frame the output
/// takes (the frame lane), faces on one frame in `faceAnalysisRate` per second (every frame by
/// default; the sampled lane). For real-time input each lane takes the newest frame: while the
/// frame lane is busy, new frames are dropped as late (counted in `statistics`); while the sampled
/// lane is busy, frames go to the frame lane only (`faceFramesLate`). Detection never holds up
/// capture. Results of the two lanes for the same frame are reported separately, each with the
/// frame's time.
// @unchecked: restates its base class's; the lanes' fields are each lane's (handed over while it is idle), the rest in locks.
public final class MetadataOutput: CaptureOutput, @unchecked Sendable {
    /// The settings, shared by the caller's thread, the capture thread and the lanes.
    let configuration = Locked(Configuration())
    private let counters = Locked(Statistics())
    /// The output's two lanes of work, serial each, on `detectorPool`'s threads.
    private let frameLane: DetectorPool.Lane
    private let sampledLane: DetectorPool.Lane
    private let frameLaneIdle = DispatchSemaphore(value: 1)
    private let sampledLaneIdle = DispatchSemaphore(value: 1)
    /// Bounds the frames whose frame-lane results wait for a slow delegate; past it frames drop
    /// upstream as late (or real-time input waits) instead of results piling up. Taken by the
    /// capture thread at reservation, never by a detector thread: a slow delegate must not hold
    /// up a pool thread other cameras' work needs.
    private let pendingResults = DispatchSemaphore(value: 16)
    /// What a frame's reservation decided, for its `deliver` or `cancelReservation`. The capture
    /// loop calls them in turn on its thread; the lock (never contended) says so in the type.
    private let reserved = Locked(Reservation())
    /// Told of every report, on the lanes (photo outputs waiting for a frame's objects).
    /// An array, not a dictionary: reading it on every report copies a reference, not the values.
    private let reportObservers = Locked<[(key: ObjectIdentifier, observe: @Sendable (AnalysedFrame, [MetadataObject]) -> Void)]>([])

    /// Settings of the face detector (`FaceDetectorConfiguration.standard` unless given); nil
    /// leaves faces unavailable.
    public let faceDetectorConfiguration: FaceDetectorConfiguration?
    /// ZBar scan density (1 = every line). Higher is faster and may miss thin codes.
    public let codeScanDensity: Int
    /// The image codes are read from (full, or half size for a quarter of the work).
    public let codeScanResolution: CodeScanResolution
    /// The threads detection runs on, shared with other outputs (cameras): `DetectorPool.shared`
    /// unless given.
    public let detectorPool: DetectorPool

    // Frame-lane state: analyzers that find nothing (motion) run first, and their verdict goes to
    // the sampled lane too; then the ones that find objects.
    private let frameGates: [any FrameAnalyzer]
    private let frameFinders: [any FrameAnalyzer]
    private var frameLaneHadObjects = false
    /// When the sampled lane is next due (frame lane, or capture thread while it is idle).
    private var sampledSchedule = AnalysisSchedule()
    /// A frame the frame lane took since the last sampled analysis had changed (frame lane): the
    /// next sampled analysis must then look, even at a frame unchanged since the frame lane's last.
    private var changedSinceSampled = false
    // Sampled-lane state.
    private let sampledAnalyzers: [any FrameAnalyzer]
    private var sampledLaneHadObjects = false

    public convenience init(faceDetector: FaceDetectorConfiguration? = .standard, codeScanDensity: Int = 1,
                            codeScanResolution: CodeScanResolution = .full, detectorPool: DetectorPool = .shared) {
        self.init(faceDetector: faceDetector, codeScanDensity: codeScanDensity, codeScanResolution: codeScanResolution,
                  detectorPool: detectorPool, registering: [])
    }

    /// An output with `extra` analyzers after the ones `makeAnalyzers` registers.
    init(faceDetector: FaceDetectorConfiguration?, codeScanDensity: Int = 1, codeScanResolution: CodeScanResolution = .full,
         detectorPool: DetectorPool = .shared, registering extra: [any FrameAnalyzer]) {
        self.detectorPool = detectorPool
        self.frameLane = detectorPool.lane(.codes)
        self.sampledLane = detectorPool.lane(.faces)
        self.codeScanResolution = codeScanResolution
        self.faceDetectorConfiguration = faceDetector
        self.codeScanDensity = codeScanDensity
        let analyzers = Self.makeAnalyzers(faceDetector: faceDetector, codeScanDensity: codeScanDensity,
                                           codeScanResolution: codeScanResolution) + extra
        frameGates = analyzers.filter { $0.lane == .everyFrame && $0.objectTypes.isEmpty }
        frameFinders = analyzers.filter { $0.lane == .everyFrame && !$0.objectTypes.isEmpty }
        sampledAnalyzers = analyzers.filter { $0.lane == .sampled }
    }

    public func setMetadataObjectsDelegate(_ delegate: (any MetadataOutputObjectsDelegate)?, queue: DispatchQueue?) {
        precondition((delegate == nil) == (queue == nil), "a metadata objects delegate needs a queue, and only then")
        configuration.withLock {
            $0.delegate = delegate
            $0.queue = queue
        }
    }

    public var metadataObjectsDelegate: (any MetadataOutputObjectsDelegate)? { configuration.withLock { $0.delegate } }
    public var metadataObjectsCallbackQueue: DispatchQueue? { configuration.withLock { $0.queue } }

    /// The types this output can find; empty until the output is added to a session.
    public var availableMetadataObjectTypes: [MetadataObjectType] { configuration.withLock { $0.available } }

    /// The types to look for; empty (the default) finds nothing.
    public var metadataObjectTypes: [MetadataObjectType] { configuration.withLock { $0.types } }

    /// Chooses the types to look for. Throws when a type is not in `availableMetadataObjectTypes`
    /// (where AVFoundation raises an exception), saying why it is missing when its analyzer could
    /// not be prepared (faces without their model).
    public func setMetadataObjectTypes(_ types: [MetadataObjectType]) throws(CaptureError) {
        let (available, unprepared) = configuration.withLock { ($0.available, $0.unprepared) }
        let missing = types.filter { !available.contains($0) }
        if !missing.isEmpty {
            if let reason = missing.lazy.compactMap({ unprepared[$0] }).first { throw reason }
            throw .unavailableMetadataObjectTypes(missing, available: available)
        }
        var unique = [MetadataObjectType]()
        for type in types where !unique.contains(type) { unique.append(type) }
        configuration.withLock {
            $0.types = unique
            $0.generation += 1
        }
        requirementsDidChange() // codes or none decide the plane size
    }

    public var statistics: Statistics {
        var snapshot = counters.withLock { $0 }
        snapshot.drops = drops.counts
        return snapshot
    }

    // MARK: Session contract

    /// Prepares each analyzer on its lane (the face cascade loads here); the types of those that
    /// fail are unavailable, with the reason kept.
    override func didJoin(_ session: CaptureSession) {
        var available = [MetadataObjectType](), unprepared = [MetadataObjectType: CaptureError]()
        func prepare(_ analyzers: [any FrameAnalyzer], on lane: DetectorPool.Lane) {
            for analyzer in analyzers {
                let failure: CaptureError? = lane.sync {
                    do throws(CaptureError) {
                        try analyzer.prepare()
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure {
                    for type in analyzer.objectTypes { unprepared[type] = failure }
                } else {
                    available += analyzer.objectTypes.filter { !available.contains($0) }
                }
            }
        }
        prepare(frameGates + frameFinders, on: frameLane)
        prepare(sampledAnalyzers, on: sampledLane)
        configuration.withLock {
            $0.available = available
            $0.unprepared = unprepared
        }
    }

    /// Pictures when they are attached, the motion threshold as the tolerance, and half-size
    /// planes when codes are read at half resolution (or none are looked for): the frames due for
    /// a whole face search are asked whole at reservation.
    override public var requirements: OutputRequirements {
        configuration.withLock { settings in
            OutputRequirements(wantsPicture: settings.attachesFramePictures,
                               unchangedFrameTolerance: settings.unchangedFrameThreshold,
                               halfPlaneMinimumWidth: codeScanResolution.halfPlaneMinimumWidth(for: settings.types))
        }
    }

    /// Takes the frame when the frame lane is idle, and for the sampled lane too when that is idle
    /// and due; asks the session for the most any analyzer that will look needs (`FrameNeed`).
    /// The lanes are idle once this has the frame, so their analyzers and the schedule are read
    /// here; what is decided here is what the frame's analysis does (`deliver`).
    override func reserveFrame(at time: MediaTime, wait: Bool) -> FrameReservation {
        guard frameLaneIdle.wait(timeout: wait ? .distantFuture : .now()) == .success else { return .declined }
        guard pendingResults.wait(timeout: wait ? .distantFuture : .now()) == .success else {
            frameLaneIdle.signal()
            return .declined
        }
        let settings = configuration.withLock { $0 }
        let wantsSampled = sampledAnalyzers.contains { $0.isWanted(by: settings) }
        var reservation = Reservation()
        if wantsSampled {
            // Input that waits for its outputs waits for the sampled lane too (a frame not due
            // frees it at once), so files give the same analyses however fast the machine;
            // real-time input gives the sampled lane the frame only if it is free.
            reservation.withSampled = sampledLaneIdle.wait(timeout: wait ? .distantFuture : .now()) == .success
        }
        reservation.sampledLaneBusy = wantsSampled && !reservation.withSampled
        reservation.sampledDue = reservation.withSampled && sampledSchedule.isDue(at: time, rate: sampledRate(settings))
        var need = FrameNeed.nothing
        for analyzer in frameFinders { need = max(need, analyzer.need(at: time, settings: settings)) }
        if reservation.sampledDue {
            // At least the plane: the sampled lane looks at every frame it is given.
            need = max(need, .plane)
            for analyzer in sampledAnalyzers where analyzer.isWanted(by: settings) {
                need = max(need, analyzer.need(at: time, settings: settings))
            }
        }
        // Between whole-frame code scans, with no code to follow, the frame lane would only give
        // the frame the last (empty) result: the frame need not be decoded.
        reservation.lookedAt = need != .nothing
        reserved.withLock { $0 = reservation }
        return need.reservation
    }

    override func cancelReservation() {
        pendingResults.signal()
        frameLaneIdle.signal()
        if reserved.withLock({ $0.withSampled }) { sampledLaneIdle.signal() }
    }

    override func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let reservation = reserved.withLock { $0 }
        frameLane.async { [self] in
            analyse(sampleBuffer, withSampled: reservation.withSampled, sampledLaneBusy: reservation.sampledLaneBusy,
                    sampledDue: reservation.sampledDue, lookedAt: reservation.lookedAt, from: connection)
        }
    }

    override func drain() {
        frameLane.sync {}
        sampledLane.sync {}
        metadataObjectsCallbackQueue?.sync {}
    }

    // MARK: Detection

    /// Finds objects in one still image right away, on the calling thread's behalf (for
    /// `lookout scan`), with the same analyzers, types and rect of interest as frames get.
    /// The output must be in a session.
    public func metadataObjects(in image: PixelBuffer, sequence: UInt64 = 0,
                                wallClockTime: WallClockTime = .now()) -> [MetadataObject] {
        let format = VideoFormatDescription(width: image.width, height: image.height, pixelFormat: .gray)
        let frame = SampleBuffer(sequence: sequence, presentationTime: .zero, wallClockTime: wallClockTime,
                                 formatDescription: format, imageBuffer: image)
        let settings = configuration.withLock { $0 }
        return frameLane.sync {
            var context = FrameAnalysisContext(still: true, counters: counters)
            return find(with: frameFinders, in: frame, context: &context, settings: settings)
        } + sampledLane.sync {
            var context = FrameAnalysisContext(still: true, counters: counters)
            return find(with: sampledAnalyzers, in: frame, context: &context, settings: settings)
        }
    }

    /// The frame lane's work for one frame: decides whether the frame changed, hands it to the
    /// sampled lane when due, and runs the frame lane's finders.
    /// - Parameters:
    ///   - sampledDue: the frame is one for the sampled lane, as decided at its reservation (the
    ///     settings may have changed since: a frame taken without pixels must not reach it).
    ///   - lookedAt: its pixels were wanted; a frame taken without them is not reported as
    ///     analysed for codes (a photo waiting for a frame's codes waits for the next).
    private func analyse(_ frame: SampleBuffer, withSampled: Bool, sampledLaneBusy: Bool,
                         sampledDue dueAtReservation: Bool, lookedAt: Bool, from connection: CaptureConnection) {
        defer { frameLaneIdle.signal() }
        let settings = configuration.withLock { $0 }
        var context = FrameAnalysisContext(counters: counters)
        for gate in frameGates { _ = run(gate, on: frame, context: &context, settings: settings) }
        let due = withSampled ? dueAtReservation : sampledSchedule.isDue(at: frame.presentationTime, rate: sampledRate(settings))
        if sampledLaneBusy && due {
            // Due, but the sampled lane is still on an earlier frame: the next free one takes over.
            counters.withLock { $0.faceFramesLate += 1 }
        }
        // Under load the sampled lane skips frames the frame lane takes: its results are restamped
        // only onto a frame unchanged since its own last one, or a face that walked out between
        // the two would stay in view for as long as the scene stays still.
        let changedForSampled = context.changed || changedSinceSampled
        changedSinceSampled = changedForSampled
        if withSampled {
            if due {
                sampledSchedule.analysed(at: frame.presentationTime)
                changedSinceSampled = false
                sampledLane.async { [self] in
                    defer { sampledLaneIdle.signal() }
                    var context = FrameAnalysisContext(changed: changedForSampled, counters: counters)
                    let objects = find(with: sampledAnalyzers, in: frame, context: &context, settings: settings)
                    report(objects, of: frame, lane: .sampled, settings: settings, from: connection)
                }
            } else {
                sampledLaneIdle.signal()
            }
        }
        let found = find(with: frameFinders, in: frame, context: &context, settings: settings)
        counters.withLock { $0.framesAnalysed += 1 }
        report(found, of: frame, lane: .everyFrame, settings: settings, lookedAt: lookedAt, from: connection)
    }

    /// The sampled lane's rate: the highest its wanted analyzers ask (0, every frame, above all).
    private func sampledRate(_ settings: Configuration) -> Double {
        var rate: Double?
        for analyzer in sampledAnalyzers where analyzer.isWanted(by: settings) {
            let own = analyzer.analysisRate(settings)
            rate = own == 0 || rate == 0 ? 0 : max(rate ?? 0, own)
        }
        return rate ?? 0
    }

    /// One lane's finders over a frame in order, their objects together; the sampled lane's only
    /// when wanted.
    private func find(with analyzers: [any FrameAnalyzer], in frame: SampleBuffer, context: inout FrameAnalysisContext,
                      settings: Configuration) -> [MetadataObject] {
        var found = [MetadataObject]()
        for analyzer in analyzers where analyzer.lane == .everyFrame || analyzer.isWanted(by: settings) {
            let objects = run(analyzer, on: frame, context: &context, settings: settings)
            if found.isEmpty { found = objects } else { found += objects }
        }
        return found
    }

    /// One analyzer's objects, masks and zones applied; a failure is the session's runtime error.
    private func run(_ analyzer: any FrameAnalyzer, on frame: SampleBuffer, context: inout FrameAnalysisContext,
                     settings: Configuration) -> [MetadataObject] {
        do throws(CaptureError) {
            var objects = try analyzer.analyse(frame, context: &context, settings: settings)
            apply(settings.regions, to: &objects)
            return objects
        } catch {
            session?.reportRuntimeError(error)
            return []
        }
    }

    /// Hands one lane's results to the delegate (as `didOutput` when there is something to say,
    /// and always as `didFinishAnalysing`).
    private func report(_ objects: [MetadataObject], of frame: SampleBuffer, lane: AnalyzerLane,
                        settings: Configuration, lookedAt: Bool = true, from connection: CaptureConnection) {
        let hasObjects = !objects.isEmpty
        let frameLaneReport = lane == .everyFrame
        let hadObjects = frameLaneReport ? frameLaneHadObjects : sampledLaneHadObjects
        let deliversObjects = hasObjects || hadObjects || settings.deliversEmptyResults
        if frameLaneReport { frameLaneHadObjects = hasObjects } else { sampledLaneHadObjects = hasObjects }
        // A camera following a face (in view, or missed lately and not yet gone) goes before
        // quiet ones for its next sampled analysis: its track must not be lost.
        if !frameLaneReport {
            sampledLane.priority = hasObjects || sampledAnalyzers.contains(where: \.isFollowing) ? .trackedFaces : .faces
        }
        var frameReport = AnalysedFrame(frame, analysedCodes: frameLaneReport && lookedAt, analysedFaces: !frameLaneReport)
        if !settings.attachesFramePictures { frameReport.picture = nil }
        let analysed = frameReport
        for observer in reportObservers.withLock({ $0 }) { observer.observe(analysed, objects) }
        // A frame-lane report frees the frame's place among the pending results once delivered.
        guard let queue = settings.queue, let delegate = settings.delegate else {
            if frameLaneReport { pendingResults.signal() }
            return
        }
        queue.async { [self] in
            if deliversObjects { delegate.metadataOutput(self, didOutput: objects, from: connection) }
            delegate.metadataOutput(self, didFinishAnalysing: analysed, from: connection)
            if frameLaneReport { pendingResults.signal() }
        }
    }

    /// Tells `observer` of every report from now on (on the lanes; it must not block): how a
    /// photo output learns the objects found in the frame it took.
    func addReportObserver(_ key: AnyObject, _ observer: @escaping @Sendable (AnalysedFrame, [MetadataObject]) -> Void) {
        reportObservers.withLock { observers in
            observers.removeAll { $0.key == ObjectIdentifier(key) }
            observers.append((ObjectIdentifier(key), observer))
        }
    }

    func removeReportObserver(_ key: AnyObject) {
        reportObservers.withLock { $0.removeAll { $0.key == ObjectIdentifier(key) } }
    }

    /// Drops the objects whose centre lies in a mask, names the zone of the rest, and counts both.
    private func apply(_ regions: DetectionRegions, to objects: inout [MetadataObject]) {
        guard !objects.isEmpty else { return }
        var masked = 0
        if !regions.isEmpty {
            objects.removeAll { object in
                let centre = object.centre
                if regions.isMasked(centre) {
                    masked += 1
                    return true
                }
                object.zone = regions.zone(for: centre)
                return false
            }
        }
        counters.withLock { stats in
            stats.objectsMasked += masked
            for object in objects { stats.objectsByType[object.type, default: 0] += 1 }
        }
    }
}
