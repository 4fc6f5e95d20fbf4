import Dispatch
import Synchronization

/// Finds machine-readable codes (ZBar) and faces (OpenCV Haar cascade) in a session's frames
/// (AVCaptureMetadataOutput).
///
/// `availableMetadataObjectTypes` is known once the output is in a session; `metadataObjectTypes`
/// must be a subset of it. Objects centred in one of the `regions`' masks are never reported; the
/// rest carry their zone. Detection works on the luma plane, within `rectOfInterest`, in two
/// serial queues of jobs on threads shared with other outputs (`detectorPool`): codes on every
/// frame it takes, faces on one frame in `faceAnalysisRate` per second (every frame by default). For real-time inputs each queue takes
/// the newest frame: while the code queue is busy, new frames are dropped as late (counted in
/// `statistics`); while the face queue is busy, frames go to the code queue only
/// (`faceFramesLate`). Detection never holds up capture. Results for codes and for faces of the
/// same frame are reported separately, each with the frame's time.
// @unchecked: restates its base class's; fields are the capture thread's, a lane's or in locks, as each says.
public final class MetadataOutput: CaptureOutput, @unchecked Sendable {
    /// The settings, shared by the caller's thread, the capture thread and the detector queues.
    let configuration = Locked(Configuration())
    private let counters = Locked(Statistics())
    /// The output's code and face work, serial each, on `detectorPool`'s threads.
    private let processingQueue: DetectorPool.Lane
    private let faceQueue: DetectorPool.Lane
    private let codesIdle = DispatchSemaphore(value: 1)
    private let facesIdle = DispatchSemaphore(value: 1)
    /// Bounds the frames whose code results wait for a slow delegate; past it frames drop upstream
    /// as late (or real-time input waits) instead of results piling up. Taken by the capture
    /// thread at reservation, never by a detector thread: a slow delegate must not hold up a pool
    /// thread other cameras' work needs.
    private let pendingResults = DispatchSemaphore(value: 16)
    private var faceReserved = false // capture thread only
    private var faceBusy = false // capture thread only
    /// The reserved frame is one for faces, and is taken without pixels (capture thread only).
    private var faceDueReserved = false
    private var pixelsSkipped = false
    /// Told of every report, on the detector queues (photo outputs waiting for a frame's objects).
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

    // Code-queue state.
    private let codes: CodeAnalysis
    private var previousHadCodes = false
    private var motionGate: MotionGate?
    private var motionGateRegionsGeneration = 0
    private var faceSchedule = AnalysisSchedule() // code queue, or capture thread while the code queue is idle
    /// A frame the code queue took since the last face analysis had changed (code queue): the
    /// next face analysis must then look, even at a frame unchanged since the code queue's last.
    private var changedSinceFaceAnalysis = false
    // Face-queue state.
    private var faces: FaceAnalysis?
    private var faceModelError: CaptureError?
    private var previousHadFaces = false

    public init(faceDetector: FaceDetectorConfiguration? = .standard, codeScanDensity: Int = 1,
                codeScanResolution: CodeScanResolution = .full, detectorPool: DetectorPool = .shared) {
        self.detectorPool = detectorPool
        self.processingQueue = detectorPool.lane(.codes)
        self.faceQueue = detectorPool.lane(.faces)
        self.codeScanResolution = codeScanResolution
        self.faceDetectorConfiguration = faceDetector
        self.codeScanDensity = codeScanDensity
        self.codes = CodeAnalysis(density: codeScanDensity, resolution: codeScanResolution)
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
    /// (where AVFoundation raises an exception), saying why faces are missing if the model failed.
    public func setMetadataObjectTypes(_ types: [MetadataObjectType]) throws(CaptureError) {
        let available = availableMetadataObjectTypes
        let missing = types.filter { !available.contains($0) }
        if !missing.isEmpty {
            if missing.contains(.face), let faceModelError = faceQueue.sync(execute: { self.faceModelError }) {
                throw faceModelError
            }
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

    override func didJoin(_ session: CaptureSession) {
        var available = MetadataObjectType.allCodeTypes
        faceQueue.sync {
            if let faceDetectorConfiguration, faces == nil {
                do throws(CaptureError) {
                    faces = try FaceAnalysis(configuration: faceDetectorConfiguration)
                } catch {
                    faceModelError = error
                }
            }
            if faces != nil { available.append(.face) }
        }
        configuration.withLock { $0.available = available }
    }

    /// Pictures when they are attached, the motion threshold as the tolerance, and half-size
    /// planes when codes are read at half resolution (or none are looked for): the frames due for
    /// faces are asked whole at reservation.
    override public var requirements: OutputRequirements {
        configuration.withLock { settings in
            OutputRequirements(wantsPicture: settings.attachesFramePictures,
                               unchangedFrameTolerance: settings.unchangedFrameThreshold,
                               halfPlaneMinimumWidth: codeScanResolution.halfPlaneMinimumWidth(for: settings.types))
        }
    }

    /// A frame due for a whole face search is taken whole (`takenWhole`): the cascade finds fewer
    /// faces in a plane decoded at half scale than in the full plane shrunk by area (91 against 95
    /// of 100 analyses of the 720p bench clip); windows around followed faces do as well in
    /// either. A frame nothing will look at is taken without its pixels (`takenWithoutPixels`).
    /// The code queue is idle once this has the frame, so the face schedule and the code analysis
    /// are read here; what is decided here is what the frame's analysis does (`deliver`).
    override func reserveFrame(at time: MediaTime, wait: Bool) -> FrameReservation {
        guard codesIdle.wait(timeout: wait ? .distantFuture : .now()) == .success else { return .declined }
        guard pendingResults.wait(timeout: wait ? .distantFuture : .now()) == .success else {
            codesIdle.signal()
            return .declined
        }
        let (wantsFaces, faceRate, generation, code, fullSearchInterval) = configuration.withLock {
            ($0.types.contains(.face), $0.faceAnalysisRate, $0.generation, $0.code, $0.faceFullSearchInterval)
        }
        faceReserved = false
        if wantsFaces {
            // Input that waits for its outputs waits for the face queue too (a frame not due for
            // faces frees it at once), so files give the same analyses however fast the machine;
            // real-time input gives the face queue the frame only if it is free.
            faceReserved = facesIdle.wait(timeout: wait ? .distantFuture : .now()) == .success
        }
        faceBusy = wantsFaces && !faceReserved
        faceDueReserved = faceReserved && faceSchedule.isDue(at: time, rate: faceRate)
        pixelsSkipped = false
        if faceDueReserved {
            // The face queue is idle (reserved): its state can be read. Only a whole search
            // needs the whole plane; windows search a half-size one as well.
            if faces?.isFullSearchDue(at: time, interval: MediaTime(seconds: fullSearchInterval)) ?? true { return .takenWhole }
            return .taken
        }
        // Between whole-frame code scans, with no code to follow, the code queue would only give
        // the frame the last (empty) result: the frame need not be decoded.
        pixelsSkipped = !codes.looksAtPixels(at: time, generation: generation, settings: code)
        return pixelsSkipped ? .takenWithoutPixels : .taken
    }

    override func cancelReservation() {
        pendingResults.signal()
        codesIdle.signal()
        if faceReserved { facesIdle.signal() }
    }

    override func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let withFaces = faceReserved, faceQueueBusy = faceBusy, facesDue = faceDueReserved, lookedAt = !pixelsSkipped
        processingQueue.async { [self] in
            analyse(sampleBuffer, withFaces: withFaces, faceQueueBusy: faceQueueBusy, facesDue: facesDue,
                    lookedAt: lookedAt, from: connection)
        }
    }

    override func drain() {
        processingQueue.sync {}
        faceQueue.sync {}
        metadataObjectsCallbackQueue?.sync {}
    }

    // MARK: Detection

    /// Finds objects in one still image right away, on the calling thread's behalf (for
    /// `lookout scan`), with the same detectors, types and rect of interest as frames get.
    /// The output must be in a session.
    public func metadataObjects(in image: PixelBuffer, sequence: UInt64 = 0,
                                wallClockTime: WallClockTime = .now()) -> [MetadataObject] {
        let format = VideoFormatDescription(width: image.width, height: image.height, pixelFormat: .gray)
        let frame = SampleBuffer(sequence: sequence, presentationTime: .zero, wallClockTime: wallClockTime,
                                 formatDescription: format, imageBuffer: image)
        let settings = configuration.withLock { $0 }
        return processingQueue.sync { detectCodes(in: frame, settings: settings, still: true) }
            + faceQueue.sync { detectFaces(in: frame, settings: settings) }
    }

    /// The code queue's work for one frame: decides whether the frame changed, hands it to the
    /// face queue when faces are due, and scans it for codes.
    /// - Parameters:
    ///   - facesDue: the frame is one for faces, as decided at its reservation (the settings may
    ///     have changed since: a frame taken without pixels must not reach the face queue).
    ///   - lookedAt: its pixels were wanted; a frame taken without them is not reported as
    ///     analysed for codes (a photo waiting for a frame's codes waits for the next).
    private func analyse(_ frame: SampleBuffer, withFaces: Bool, faceQueueBusy: Bool, facesDue dueAtReservation: Bool,
                         lookedAt: Bool, from connection: CaptureConnection) {
        defer { codesIdle.signal() }
        let settings = configuration.withLock { $0 }
        var changed = true
        if settings.unchangedFrameThreshold > 0 {
            // Whole and half-size planes in turn (see requirements) compare only when whole
            // planes are sampled in full.
            let mayMixPlaneSizes = codeScanResolution.acceptsHalfSizePlanes(for: settings.types,
                                                                            frameWidth: frame.formatDescription.width)
            if motionGate?.threshold != settings.unchangedFrameThreshold || motionGate?.samplesEveryPixel != mayMixPlaneSizes
                || motionGateRegionsGeneration != settings.regionsGeneration {
                motionGate = MotionGate(threshold: settings.unchangedFrameThreshold, samplesEveryPixel: mayMixPlaneSizes,
                                        masks: settings.regions.masks)
                motionGateRegionsGeneration = settings.regionsGeneration
            }
            changed = motionGate!.hasChanged(frame.imageBuffer, reduction: frame.lumaReduction)
            if !changed { counters.withLock { $0.framesUnchanged += 1 } }
        } else {
            motionGate = nil
        }
        // Windows look where the frame changed since the code queue's last look.
        if changed, settings.code.wholeFrameRate > 0 { codes.gatherChanges(motionGate?.changedBlocks ?? .everywhere) }
        let facesDue = withFaces ? dueAtReservation : faceSchedule.isDue(at: frame.presentationTime, rate: settings.faceAnalysisRate)
        if faceQueueBusy && facesDue {
            // Due, but the face queue is still on an earlier frame: the next free one takes over.
            counters.withLock { $0.faceFramesLate += 1 }
        }
        // Under load the face queue skips frames the code queue takes: faces are restamped only
        // onto a frame unchanged since the face queue's own last one, or a face that walked out
        // between the two would stay in view for as long as the scene stays still.
        let changedForFaces = changed || changedSinceFaceAnalysis
        changedSinceFaceAnalysis = changedForFaces
        if withFaces {
            if facesDue {
                faceSchedule.analysed(at: frame.presentationTime)
                changedSinceFaceAnalysis = false
                faceQueue.async { [self, changedForFaces] in
                    defer { facesIdle.signal() }
                    let faces = changedForFaces ? detectFaces(in: frame, settings: settings)
                                                : restampFaces(onto: frame, settings: settings)
                    report(faces, of: frame, codes: false, hadObjects: &previousHadFaces, settings: settings,
                           from: connection)
                }
            } else {
                facesIdle.signal()
            }
        }
        let found = changed ? detectCodes(in: frame, settings: settings) : restampCodes(onto: frame, settings: settings)
        counters.withLock { $0.framesAnalysed += 1 }
        report(found, of: frame, codes: true, hadObjects: &previousHadCodes, settings: settings, lookedAt: lookedAt,
               from: connection)
    }

    /// Hands one queue's results to the delegate (as `didOutput` when there is something to say,
    /// and always as `didFinishAnalysing`).
    private func report(_ objects: [MetadataObject], of frame: SampleBuffer, codes: Bool, hadObjects: inout Bool,
                        settings: Configuration, lookedAt: Bool = true, from connection: CaptureConnection) {
        let hasObjects = !objects.isEmpty
        let deliversObjects = hasObjects || hadObjects || settings.deliversEmptyResults
        hadObjects = hasObjects
        // A camera following a face (in view, or missed lately and not yet gone) goes before
        // quiet ones for its next face analysis: its track must not be lost.
        if !codes { faceQueue.priority = hasObjects || faces?.isFollowingFaces == true ? .trackedFaces : .faces }
        var frameReport = AnalysedFrame(frame, analysedCodes: codes && lookedAt, analysedFaces: !codes)
        if !settings.attachesFramePictures { frameReport.picture = nil }
        let analysed = frameReport
        for observer in reportObservers.withLock({ $0 }) { observer.observe(analysed, objects) }
        // A code report frees the frame's place among the pending results once delivered.
        guard let queue = settings.queue, let delegate = settings.delegate else {
            if codes { pendingResults.signal() }
            return
        }
        queue.async { [self] in
            if deliversObjects { delegate.metadataOutput(self, didOutput: objects, from: connection) }
            delegate.metadataOutput(self, didFinishAnalysing: analysed, from: connection)
            if codes { pendingResults.signal() }
        }
    }

    /// Tells `observer` of every report from now on (on the detector queues; it must not block):
    /// how a photo output learns the objects found in the frame it took.
    func addReportObserver(_ key: AnyObject, _ observer: @escaping @Sendable (AnalysedFrame, [MetadataObject]) -> Void) {
        reportObservers.withLock { observers in
            observers.removeAll { $0.key == ObjectIdentifier(key) }
            observers.append((ObjectIdentifier(key), observer))
        }
    }

    func removeReportObserver(_ key: AnyObject) {
        reportObservers.withLock { $0.removeAll { $0.key == ObjectIdentifier(key) } }
    }

    /// Code queue.
    private func detectCodes(in frame: SampleBuffer, settings: Configuration, still: Bool = false) -> [MetadataObject] {
        let start = MonotonicClock.nanoseconds()
        guard var objects = codes.detect(in: frame, types: settings.types, generation: settings.generation,
                                         rectOfInterest: settings.rectOfInterest, settings: settings.code, still: still) else { return [] }
        let (secondPassReads, zxingLooks, zxingFailures) = (codes.secondPassReads, codes.zxingLooks, codes.zxingFailures)
        counters.withLock {
            $0.codeTimes.record(since: start)
            $0.secondPassReads = secondPassReads
            $0.zxingLooks = zxingLooks
            $0.zxingFailures = zxingFailures
        }
        apply(settings.regions, to: &objects)
        return objects
    }

    /// Code queue: the last frame's codes on an unchanged frame.
    private func restampCodes(onto frame: SampleBuffer, settings: Configuration) -> [MetadataObject] {
        var objects = codes.restamp(onto: frame, settings: settings.code)
        apply(settings.regions, to: &objects)
        return objects
    }

    /// Face queue.
    private func detectFaces(in frame: SampleBuffer, settings: Configuration) -> [MetadataObject] {
        guard settings.types.contains(.face), let faces else { return [] }
        let start = MonotonicClock.nanoseconds()
        do {
            var (objects, masked) = try faces.detect(in: frame, rectOfInterest: settings.rectOfInterest,
                                                     singleThreaded: settings.faceAnalysisRate > 0, regions: settings.regions,
                                                     fullSearchInterval: MediaTime(seconds: settings.faceFullSearchInterval))
            counters.withLock {
                $0.faceTimes.record(since: start)
                $0.faceAnalyses += 1
                $0.objectsMasked += masked
            }
            apply(settings.regions, to: &objects)
            return objects
        } catch {
            session?.reportRuntimeError(error)
            return []
        }
    }

    /// Face queue: the last analysis's faces on an unchanged frame.
    private func restampFaces(onto frame: SampleBuffer, settings: Configuration) -> [MetadataObject] {
        var (objects, masked) = faces?.restamp(onto: frame, regions: settings.regions) ?? ([], 0)
        counters.withLock {
            $0.faceAnalyses += 1
            $0.objectsMasked += masked
        }
        apply(settings.regions, to: &objects)
        return objects
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
