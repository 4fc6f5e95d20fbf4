/// Where a metadata output's code queue reads a frame of a real-time input: the whole frame (its
/// rect of interest) at `rate` a second of stream time, and between those scans only windows:
/// around the codes read in the last look (`CodeTracker`), and around the blocks the motion gate
/// saw change since the last look when they are a small part of the frame. A code read in its
/// window is read as the whole-frame scan reads it (`BarcodeScanner.scan(_:window:region:planeIsHalfSize:)`);
/// a code that appears elsewhere is read at the next whole-frame scan, and a code its window lost
/// (moved too far, or the scene cut) makes the frame's scan whole.
struct CodeWindowSearch {
    /// What to scan in a frame.
    enum Plan: Equatable {
        case wholeFrame
        /// These rectangles (frame pixels, within the region, none overlapping another); none at
        /// all when nothing is tracked and nothing small changed.
        case windows([Rect])
    }

    /// The share of the frame whose change is scanned in windows; past it, a change waits for the
    /// next whole-frame scan (a busy scene changes everywhere, and windows would be the frame).
    static let changedAreaLimit = 0.25
    /// Frame pixels around changed blocks: a code straddling a block that did not change.
    static let changeMargin = 16
    /// Windows covering more of the region than this are one whole-frame scan instead.
    static let windowAreaLimit = 0.5

    private(set) var tracker = CodeTracker()
    private var schedule = AnalysisSchedule()
    /// The blocks that changed since the last look at them.
    private var changes = ChangedBlocks.everywhere

    /// Adds the blocks the motion gate saw change in a frame (everywhere without a gate).
    mutating func gather(_ blocks: ChangedBlocks) {
        changes.formUnion(blocks)
    }

    /// Whether the frame at `time` is one for a whole-frame scan.
    func isWholeFrameDue(at time: MediaTime, rate: Double) -> Bool {
        schedule.isDue(at: time, rate: rate)
    }

    /// What to scan in the frame at `time`. `region` is the rect of interest in frame pixels.
    mutating func plan(at time: MediaTime, rate: Double, region: Rect, frameWidth: Int, frameHeight: Int) -> Plan {
        guard !schedule.isDue(at: time, rate: rate) else { return wholeFrame(at: time) }
        let around = tracker.windows(at: time)
        // A code near the region's edge may lack its quiet zone there, and ZBar then reads it
        // only by joining halves of it read on different lines: what it joins depends on every
        // line scanned before, so only the whole frame reads it as the whole frame does.
        guard around.allSatisfy({ region.intersection($0) == $0 }) else { return wholeFrame(at: time) }
        let tracked = Self.clipped(around, to: region)
        guard Self.area(tracked) <= Self.windowAreaLimit * region.area else { return wholeFrame(at: time) }
        if changes.columns > 0, !changes.isEverywhere, changes.fraction <= Self.changedAreaLimit {
            let changed = Self.clipped(changes.regions(margin: Self.changeMargin, frameWidth: frameWidth, frameHeight: frameHeight),
                                       to: region)
            let windows = Self.clipped(tracked + changed, to: region)
            // Scattered changes merge into large windows: past the limits they wait for the next
            // whole-frame scan.
            if Self.area(changed) <= Self.changedAreaLimit * region.area, Self.area(windows) <= Self.windowAreaLimit * region.area {
                changes.clear()
                return .windows(windows)
            }
        }
        return .windows(tracked)
    }

    /// Rectangles clipped to `region`, merged until none overlaps another.
    private static func clipped(_ rects: [Rect], to region: Rect) -> [Rect] {
        ChangedBlocks.merged(rects.map { $0.intersection(region) }.filter { $0.area > 0 })
    }

    private static func area(_ rects: [Rect]) -> Double {
        rects.reduce(0) { $0 + $1.area }
    }

    /// The frame at `time` was scanned whole after all (a code its window lost).
    mutating func scannedWholeFrame(at time: MediaTime) {
        _ = wholeFrame(at: time)
    }

    private mutating func wholeFrame(at time: MediaTime) -> Plan {
        schedule.analysed(at: time)
        changes.clear()
        return .wholeFrame
    }

    /// The codes read in the frame just planned (corners in frame pixels).
    mutating func found(_ codes: [ScannedCode], at time: MediaTime) {
        tracker.update(with: codes, at: time)
    }

    /// Starts afresh (other types or rect of interest): the next frame is scanned whole.
    mutating func reset() {
        self = CodeWindowSearch()
    }
}
