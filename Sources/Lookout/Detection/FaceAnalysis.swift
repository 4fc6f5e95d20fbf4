/// The face job of a metadata output: the Haar cascade over what `FaceSearchPlanner` says to
/// search (the whole rect of interest, or windows where faces can be), face IDs from the tracker,
/// and the last result restamped onto frames found unchanged. Used on one queue only.
final class FaceAnalysis {
    let detector: FaceDetector
    private var tracker: FaceTracker
    private var planner = FaceSearchPlanner()
    private var lastFaces: [Rect] = []
    private var lastAnalysis: MediaTime?
    private(set) var fullSearches = 0
    private(set) var windowSearches = 0

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
        let fullSearch = planner.plan(frame, region: region, rectOfInterest: rectOfInterest, masks: regions.masks,
                                      moved: moved, interval: fullSearchInterval, continuesStream: isSameStream(at: time),
                                      expectedFaces: fullSearchInterval == .zero ? [] : tracker.expectedFaces(at: time))
        var boxes: [Rect]
        if fullSearch {
            boxes = try detector.detect(frame.imageBuffer, region: region.pixels, scale: frame.lumaScale,
                                        singleThreaded: singleThreaded, trusted: trusted)
            fullSearches += 1
        } else {
            boxes = []
            for window in planner.windows {
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

    /// Whether an analysis at `time` searches the whole rect of interest (see `FaceSearchPlanner`).
    func isFullSearchDue(at time: MediaTime, interval: MediaTime) -> Bool {
        planner.isFullSearchDue(at: time, interval: interval, continuesStream: isSameStream(at: time))
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
