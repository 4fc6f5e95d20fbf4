/// The face job of a metadata output: the Haar cascade over the rect of interest, face IDs from
/// the tracker, and the last result restamped onto frames found unchanged. Used on one queue only.
///
/// With a full-search interval, most analyses search only where faces can be: around each face
/// being followed (where the tracker expects it, at the sizes it may have now) and the parts of
/// the picture that moved since the last analysis, within a budget of moved area a second (a
/// busy scene moves everywhere: searching all of it at every analysis is the work windows
/// avoid). The whole rect of interest is searched once per interval (and on the first analysis
/// of a stream), so a face that appeared where nothing seemed to move is found within it.
final class FaceAnalysis {
    let detector: FaceDetector
    private var tracker: FaceTracker
    private var lastFaces: [Rect] = []
    private var lastAnalysis: MediaTime?
    private var lastFullSearch: MediaTime?
    /// What the last analysis searched: frame size, rect of interest and masks. Any change makes
    /// the next analysis a whole search (the followed faces' places may not hold any more).
    private var lastGeometry: (width: Int, height: Int, rectOfInterest: Rect, masks: [RegionPolygon])?
    private var windows: [FaceDetector.Window] = []
    /// Which blocks moved between this analysis's frame and the last one's (its own gate: the
    /// metadata output's compares frames for codes, with or without a threshold).
    private var motionGate: MotionGate?
    private(set) var fullSearches = 0
    private(set) var windowSearches = 0

    /// Moved parts searched a second, in rects of interest, at most; up to `movedAreaBurst` at
    /// once. A person walking into a quiet room moves a fifth of it and is searched at once; a
    /// busy scene's moves wait, gathered, until the budget allows or the whole search comes.
    static let movedAreaPerSecond = 0.25
    static let movedAreaBurst = 1.0
    private var movedBudget = movedAreaBurst
    private var lastBudgetTime: MediaTime?
    /// Moved blocks not searched yet.
    private var unsearchedMoves = ChangedBlocks.everywhere
    /// Moved blocks are searched this many frame pixels beyond their edges: a face is larger than
    /// the blocks of it that moved.
    static let movedMargin = 32
    /// Grey levels a block's mean must move by to count as moved: the camera default of
    /// `--motion-threshold`, above sensor noise.
    static let movedThreshold = 4

    init(configuration: FaceDetectorConfiguration) throws(CaptureError) {
        detector = try FaceDetector(configuration: configuration)
        tracker = FaceTracker(leaveRule: FaceLeaveRule(delay: configuration.trackRetention), confirmations: configuration.confirmations)
    }

    /// Whether a face is being followed (found lately and not yet gone).
    var isFollowingFaces: Bool { tracker.isFollowingFaces }

    /// The faces in `frame` whose region lies in `rectOfInterest`, in frame pixels, with IDs, and
    /// how many were dropped for a centre in one of `regions`' masks. Masked faces never reach the
    /// tracker: a face in a mask is not in view, so its visit ends there and one coming out of the
    /// mask enters once, with a new ID.
    /// - Parameters:
    ///   - moved: the blocks that moved since the last analysis; nil compares this frame with
    ///     the last analysed one.
    ///   - fullSearchInterval: stream time between whole searches; zero makes every one whole.
    func detect(in frame: SampleBuffer, rectOfInterest: Rect, singleThreaded: Bool,
                regions: DetectionRegions = .none, moved: ChangedBlocks? = nil,
                fullSearchInterval: MediaTime = .zero) throws(CaptureError) -> (objects: [MetadataObject], masked: Int) {
        let region = SearchRegion(rectOfInterest, in: frame.imageBuffer)
        // The last analysis's faces passed the verifier: found again where they were, moments
        // later in the same stream, they are not verified again. (Stills all have time 0.)
        let time = frame.presentationTime
        let trusted = isSameStream(at: time) ? lastFaces : []
        let geometry = (frame.formatDescription.width, frame.formatDescription.height, rectOfInterest, regions.masks)
        let sameGeometry = lastGeometry.map { $0.width == geometry.0 && $0.height == geometry.1
            && $0.rectOfInterest == geometry.2 && $0.masks == geometry.3 } ?? false
        if !sameGeometry { lastGeometry = geometry }
        let fullSearchDue = !sameGeometry || isFullSearchDue(at: time, interval: fullSearchInterval)
        if fullSearchInterval != .zero {
            unsearchedMoves.formUnion(moved ?? movedBlocks(in: frame, masks: regions.masks))
            let elapsed = lastBudgetTime.map { time > $0 ? Double(time.nanoseconds - $0.nanoseconds) / 1e9 : 0 } ?? 0
            movedBudget = min(Self.movedAreaBurst, movedBudget + elapsed * Self.movedAreaPerSecond)
            lastBudgetTime = time
        }
        var boxes: [Rect]
        if fullSearchDue {
            boxes = try detector.detect(frame.imageBuffer, region: region.pixels, scale: frame.lumaScale,
                                        singleThreaded: singleThreaded, trusted: trusted)
            lastFullSearch = time
            fullSearches += 1
            unsearchedMoves.clear()
        } else {
            planWindows(in: frame, region: region)
            boxes = []
            for window in windows {
                let found = try detector.detect(frame.imageBuffer, region: region.pixels, scale: frame.lumaScale,
                                                singleThreaded: singleThreaded, trusted: trusted, window: window)
                // Windows may overlap: a face found in two is one face.
                for box in found where !boxes.contains(where: { $0.intersectionOverUnion(box) > 0.3 }) { boxes.append(box) }
            }
            windowSearches += 1
        }
        lastFaces = boxes
        lastAnalysis = time
        return objects(boxes, in: frame, regions: regions)
    }

    /// Whether an analysis at `time` is of the same stream as the last one, moments later.
    private func isSameStream(at time: MediaTime) -> Bool {
        lastAnalysis.map { time > $0 && time.nanoseconds - $0.nanoseconds <= detector.configuration.trackRetention.nanoseconds } ?? false
    }

    /// Whether an analysis at `time` searches the whole rect of interest: always with no interval,
    /// at a stream's first, and one interval after the last whole search.
    func isFullSearchDue(at time: MediaTime, interval: MediaTime) -> Bool {
        interval == .zero || !isSameStream(at: time)
            || lastFullSearch.map { time < $0 || Double(time.nanoseconds - $0.nanoseconds) >= Double(interval.nanoseconds) * 0.95 } ?? true
    }

    /// The blocks that moved since the last analysed frame; motion in masks does not count.
    private func movedBlocks(in frame: SampleBuffer, masks: [RegionPolygon]) -> ChangedBlocks {
        if motionGate?.masks != masks {
            // Every pixel: whole planes (whole searches) and half-size ones (windows) alternate.
            motionGate = MotionGate(threshold: Self.movedThreshold, samplesEveryPixel: true, masks: masks)
        }
        _ = motionGate!.hasChanged(frame.imageBuffer, reduction: frame.lumaReduction)
        return motionGate!.changedBlocks
    }

    /// The windows of an analysis that is not a full search, in plane pixels inside `region`:
    /// each followed face where it may be now, then the parts that moved when the budget allows.
    private func planWindows(in frame: SampleBuffer, region: SearchRegion) {
        windows.removeAll(keepingCapacity: true)
        let scale = frame.lumaScale
        func window(_ area: Rect, faceSides: ClosedRange<Double>?) -> FaceDetector.Window? {
            // Frame pixels to plane pixels, inside the region.
            let plane = Rect(x: area.x / scale.x, y: area.y / scale.y, width: area.width / scale.x, height: area.height / scale.y)
                .intersection(region.rect)
            let x = Int(plane.x.rounded(.down)), y = Int(plane.y.rounded(.down))
            let width = Int(plane.maxX.rounded(.up)) - x, height = Int(plane.maxY.rounded(.up)) - y
            guard width >= 8, height >= 8 else { return nil }
            return FaceDetector.Window(pixels: (x, y, width, height), faceSides: faceSides)
        }
        for (area, width) in tracker.expectedFaces(at: frame.presentationTime) {
            let ratio = FaceTracker.maximumSizeRatio
            if let found = window(area, faceSides: (width / ratio)...(width * ratio)) { windows.append(found) }
        }
        guard !unsearchedMoves.isEmpty, !unsearchedMoves.isEverywhere else { return }
        let (frameWidth, frameHeight) = (frame.formatDescription.width, frame.formatDescription.height)
        let parts = unsearchedMoves.regions(margin: Self.movedMargin, frameWidth: frameWidth, frameHeight: frameHeight)
            .map { Rect(x: $0.x / scale.x, y: $0.y / scale.y, width: $0.width / scale.x, height: $0.height / scale.y).intersection(region.rect) }
        let share = parts.reduce(0) { $0 + $1.area } / max(1, region.rect.area)
        guard share <= movedBudget else { return }
        movedBudget -= share
        unsearchedMoves.clear()
        for part in parts {
            if let found = window(Rect(x: part.x * scale.x, y: part.y * scale.y, width: part.width * scale.x,
                                       height: part.height * scale.y), faceSides: nil) { windows.append(found) }
        }
    }

    /// The last analysis's faces on an unchanged frame. The tracker sees them again, so a face
    /// sitting still keeps its ID however long the scene stays the same.
    func restamp(onto frame: SampleBuffer, regions: DetectionRegions = .none) -> (objects: [MetadataObject], masked: Int) {
        objects(lastFaces, in: frame, regions: regions)
    }

    private func objects(_ found: [Rect], in frame: SampleBuffer, regions: DetectionRegions) -> (objects: [MetadataObject], masked: Int) {
        var boxes = found
        if !regions.masks.isEmpty {
            let (width, height) = (frame.formatDescription.width, frame.formatDescription.height)
            boxes.removeAll { box in
                let bounds = box.normalized(width: width, height: height)
                return regions.isMasked(Point(x: bounds.midX, y: bounds.midY))
            }
        }
        let tracked = tracker.track(boxes, at: frame.presentationTime)
        let objects: [MetadataObject] = zip(boxes, tracked).compactMap { box, track in
            track.isConfirmed ? FaceObject(frame: frame, pixelBounds: box, faceID: track.id) : nil
        }
        return (objects, found.count - boxes.count)
    }
}
