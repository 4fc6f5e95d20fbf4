/// What a face analysis searches. With a full-search interval, most analyses search only where
/// faces can be: around each face being followed (where the tracker expects it, at the sizes it
/// may have now) and the parts of the picture that moved since the last analysis, within a budget
/// of moved area a second (a busy scene moves everywhere: searching all of it at every analysis is
/// the work windows avoid). The whole rect of interest is searched once per interval, at the first
/// analysis of a stream, and when the frame size, rect of interest or masks change, so a face that
/// appeared where nothing seemed to move is found within the interval.
struct FaceSearchPlanner {
    /// Moved parts searched a second, in rects of interest, at most; up to `movedAreaBurst` at
    /// once. A person walking into a quiet room moves a fifth of it and is searched at once; a
    /// busy scene's moves wait, gathered, until the budget allows or the whole search comes.
    static let movedAreaPerSecond = 0.25
    static let movedAreaBurst = 1.0
    /// Moved blocks are searched this many frame pixels beyond their edges: a face is larger than
    /// the blocks of it that moved.
    static let movedMargin = 32
    /// Grey levels a block's mean must move by to count as moved: the camera default of
    /// `--motion-threshold`, above sensor noise.
    static let movedThreshold = 4

    private var lastFullSearch: MediaTime?
    /// What the last analysis searched: frame size, rect of interest and masks.
    private var lastGeometry: (width: Int, height: Int, rectOfInterest: Rect, masks: [RegionPolygon])?
    /// Which blocks moved between this analysis's frame and the last one's (a gate of its own:
    /// the metadata output's compares frames for codes, with or without a threshold).
    private var motionGate: MotionGate?
    private var movedBudget = movedAreaBurst
    private var lastBudgetTime: MediaTime?
    /// Moved blocks not searched yet.
    private var unsearchedMoves = ChangedBlocks.everywhere
    /// The windows of the last plan that was not a whole search, in plane pixels.
    private(set) var windows: [FaceDetector.Window] = []

    /// Whether an analysis at `time` searches the whole rect of interest: always with no interval,
    /// at a stream's first (`continuesStream` false), and one interval after the last whole search.
    func isFullSearchDue(at time: MediaTime, interval: MediaTime, continuesStream: Bool) -> Bool {
        interval == .zero || !continuesStream
            || lastFullSearch.map { time < $0 || Double(time.nanoseconds - $0.nanoseconds) >= Double(interval.nanoseconds) * 0.95 } ?? true
    }

    /// Plans the analysis of `frame`: true for a whole search of `region`; false when `windows`
    /// hold what to search (each face in `expectedFaces` where it may be now, then the parts that
    /// moved when the budget allows).
    /// - Parameter moved: the blocks that moved since the last analysis; nil compares `frame` with
    ///   the last analysed one.
    mutating func plan(_ frame: SampleBuffer, region: SearchRegion, rectOfInterest: Rect, masks: [RegionPolygon],
                       moved: ChangedBlocks?, interval: MediaTime, continuesStream: Bool,
                       expectedFaces: [(area: Rect, width: Double)]) -> Bool {
        let time = frame.presentationTime
        let (width, height) = (frame.formatDescription.width, frame.formatDescription.height)
        let sameGeometry = lastGeometry.map { $0.width == width && $0.height == height
            && $0.rectOfInterest == rectOfInterest && $0.masks == masks } ?? false
        if !sameGeometry { lastGeometry = (width, height, rectOfInterest, masks) }
        if interval != .zero {
            unsearchedMoves.formUnion(moved ?? movedBlocks(in: frame, masks: masks))
            let elapsed = lastBudgetTime.map { time > $0 ? Double(time.nanoseconds - $0.nanoseconds) / 1e9 : 0 } ?? 0
            movedBudget = min(Self.movedAreaBurst, movedBudget + elapsed * Self.movedAreaPerSecond)
            lastBudgetTime = time
        }
        if !sameGeometry || isFullSearchDue(at: time, interval: interval, continuesStream: continuesStream) {
            lastFullSearch = time
            unsearchedMoves.clear()
            return true
        }
        planWindows(in: frame, region: region, expectedFaces: expectedFaces)
        return false
    }

    /// The blocks that moved since the last analysed frame; motion in masks does not count.
    private mutating func movedBlocks(in frame: SampleBuffer, masks: [RegionPolygon]) -> ChangedBlocks {
        if motionGate?.masks != masks {
            // Every pixel: whole planes (whole searches) and half-size ones (windows) alternate.
            motionGate = MotionGate(threshold: Self.movedThreshold, samplesEveryPixel: true, masks: masks)
        }
        _ = motionGate!.hasChanged(frame.imageBuffer, reduction: frame.lumaReduction)
        return motionGate!.changedBlocks
    }

    private mutating func planWindows(in frame: SampleBuffer, region: SearchRegion, expectedFaces: [(area: Rect, width: Double)]) {
        windows.removeAll(keepingCapacity: true)
        let scale = frame.lumaScale
        func window(_ area: Rect, faceSides: ClosedRange<Double>?) -> FaceDetector.Window? {
            // Frame pixels to plane pixels, inside the region.
            let plane = area.scaled(x: 1 / scale.x, y: 1 / scale.y).intersection(region.rect)
            let x = Int(plane.x.rounded(.down)), y = Int(plane.y.rounded(.down))
            let width = Int(plane.maxX.rounded(.up)) - x, height = Int(plane.maxY.rounded(.up)) - y
            guard width >= 8, height >= 8 else { return nil }
            return FaceDetector.Window(pixels: (x, y, width, height), faceSides: faceSides)
        }
        for (area, width) in expectedFaces {
            let ratio = FaceTracker.maximumSizeRatio
            if let found = window(area, faceSides: (width / ratio)...(width * ratio)) { windows.append(found) }
        }
        guard !unsearchedMoves.isEmpty, !unsearchedMoves.isEverywhere else { return }
        let (frameWidth, frameHeight) = (frame.formatDescription.width, frame.formatDescription.height)
        // The moved parts inside the region, in frame pixels, and their share of it.
        let regionInFrame = region.rect.scaled(x: scale.x, y: scale.y)
        let parts = unsearchedMoves.regions(margin: Self.movedMargin, frameWidth: frameWidth, frameHeight: frameHeight)
            .map { $0.intersection(regionInFrame) }
        let share = parts.reduce(0) { $0 + $1.area } / max(1, regionInFrame.area)
        guard share <= movedBudget else { return }
        movedBudget -= share
        unsearchedMoves.clear()
        for part in parts {
            if let found = window(part, faceSides: nil) { windows.append(found) }
        }
    }
}
