/// The face job of a metadata output: the Haar cascade over the rect of interest, face IDs from
/// the tracker, and the last result restamped onto frames found unchanged. Used on one queue only.
final class FaceAnalysis {
    let detector: FaceDetector
    private var tracker: FaceTracker
    private var lastFaces: [Rect] = []
    private var lastAnalysis: MediaTime?

    init(configuration: FaceDetectorConfiguration) throws(CaptureError) {
        detector = try FaceDetector(configuration: configuration)
        tracker = FaceTracker(leaveRule: FaceLeaveRule(delay: configuration.trackRetention), confirmations: configuration.confirmations)
    }

    /// The faces in `frame` whose region lies in `rectOfInterest`, in frame pixels, with IDs, and
    /// how many were dropped for a centre in one of `regions`' masks. Masked faces never reach the
    /// tracker: a face in a mask is not in view, so its visit ends there and one coming out of the
    /// mask enters once, with a new ID.
    func detect(in frame: SampleBuffer, rectOfInterest: Rect, singleThreaded: Bool,
                regions: DetectionRegions = .none) throws(CaptureError) -> (objects: [MetadataObject], masked: Int) {
        let region = SearchRegion(rectOfInterest, in: frame.imageBuffer)
        // The last analysis's faces passed the verifier: found again where they were, moments
        // later in the same stream, they are not verified again. (Stills all have time 0.)
        let time = frame.presentationTime
        let isSameStream = lastAnalysis.map { time > $0 && time.nanoseconds - $0.nanoseconds <= detector.configuration.trackRetention.nanoseconds } ?? false
        let boxes = try detector.detect(frame.imageBuffer, region: region.pixels, scale: frame.lumaScale,
                                        singleThreaded: singleThreaded, trusted: isSameStream ? lastFaces : [])
        lastFaces = boxes
        lastAnalysis = time
        return objects(boxes, in: frame, regions: regions)
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
