import Dispatch

/// The settings of a metadata output, as AVCaptureMetadataOutput has them and beyond: each may be
/// changed while running and applies from the next frame analysed.
extension MetadataOutput {
    /// What the output is set to do (`configuration`).
    struct Configuration {
        weak var delegate: (any MetadataOutputObjectsDelegate)?
        var queue: DispatchQueue?
        var types: [MetadataObjectType] = []
        var available: [MetadataObjectType] = []
        /// Why a type is not available: its analyzer could not be prepared (a missing model).
        var unprepared: [MetadataObjectType: CaptureError] = [:]
        var rectOfInterest = Rect.unit
        var regions = DetectionRegions.none
        /// Counts changes of `regions`, so the code queue renews its motion gate only then.
        var regionsGeneration = 0
        var deliversEmptyResults = false
        var faceAnalysisRate = 0.0
        var faceFullSearchInterval = 0.0
        var unchangedFrameThreshold = 0
        var attachesFramePictures = false
        var code = CodeAnalysis.Settings()
        var generation = 0
    }

    /// The part of the frame to search, normalized with a top-left origin; the whole frame by
    /// default. Objects whose centre lies outside it are not reported, and detectors skip the rest
    /// of the frame.
    public var rectOfInterest: Rect {
        get { configuration.withLock { $0.rectOfInterest } }
        set {
            let clamped = newValue.intersection(.unit)
            precondition(clamped.width > 0 && clamped.height > 0, "the rect of interest must overlap the frame")
            configuration.withLock { $0.rectOfInterest = clamped }
        }
    }

    /// Masks and named zones, normalized with a top-left origin; none by default. An object whose
    /// centre lies in a mask is never reported (it is counted in `statistics.objectsMasked`);
    /// any other carries the name of the first zone holding its centre (`MetadataObject.zone`).
    /// With `unchangedFrameThreshold`, motion inside masks does not count as a change. May be
    /// changed while running: it applies from the next frame analysed.
    public var regions: DetectionRegions {
        get { configuration.withLock { $0.regions } }
        set {
            configuration.withLock {
                guard $0.regions != newValue else { return }
                $0.regions = newValue
                $0.regionsGeneration += 1
            }
        }
    }

    /// Calls the delegate for every analysed frame, with an empty array when nothing was found.
    public var deliversEmptyResults: Bool {
        get { configuration.withLock { $0.deliversEmptyResults } }
        set { configuration.withLock { $0.deliversEmptyResults = newValue } }
    }

    /// Face analyses per second of stream time, at most; 0 (the default) analyses every frame
    /// the face queue can take. Faces move slowly and the cascade costs more than everything else:
    /// 10 a second keeps presence responsive at a fraction of the work.
    public var faceAnalysisRate: Double {
        get { configuration.withLock { $0.faceAnalysisRate } }
        set { configuration.withLock { $0.faceAnalysisRate = max(0, newValue) } }
    }

    /// Seconds of stream time between searches of the whole rect of interest for faces; in
    /// between, an analysis looks only around the faces being followed and in the parts of the
    /// picture that moved (when they are small), for a fraction of the work. 0 (the default)
    /// searches the whole rect of interest at every analysis. A face that appears where nothing
    /// moved enough to see is found within this long.
    public var faceFullSearchInterval: Double {
        get { configuration.withLock { $0.faceFullSearchInterval } }
        set { configuration.withLock { $0.faceFullSearchInterval = max(0, newValue) } }
    }

    /// Skips detector work on frames that differ from the last analysed one by at most this many
    /// grey levels in every 16x16 block (the detectors would find the same); such frames get the
    /// last results, restamped. 0 (the default) analyses every frame.
    public var unchangedFrameThreshold: Int {
        get { configuration.withLock { $0.unchangedFrameThreshold } }
        set {
            configuration.withLock { $0.unchangedFrameThreshold = max(0, newValue) }
            requirementsDidChange()
        }
    }

    /// Milliseconds a frame ZBar read no code in may spend on a second look: ZBar on prepared
    /// copies (contrast stretched, shrunk, inverted) and zxing-cpp, stopping at the first that
    /// reads something. 0 (the default) turns it off. A still image can afford hundreds; live
    /// video a few, with `codeSecondPassRate` bounding how often.
    public var codeSecondPassBudget: Double {
        get { configuration.withLock { $0.code.secondPassBudget } }
        set { configuration.withLock { $0.code.secondPassBudget = max(0, newValue) } }
    }

    /// Second passes per second of stream time at most; 0 (the default) allows one on every
    /// frame ZBar read nothing in.
    public var codeSecondPassRate: Double {
        get { configuration.withLock { $0.code.secondPassRate } }
        set { configuration.withLock { $0.code.secondPassRate = max(0, newValue) } }
    }

    /// `codeWholeFrameRate` for video: a code appearing anywhere is read within 3 frames at 30 fps.
    public static let videoCodeWholeFrameRate = 7.5

    /// Whole-frame code scans per second of stream time, at most; 0 (the default) scans the whole
    /// frame (the rect of interest) on every frame taken. Between them ZBar reads windows only:
    /// around the codes read in the last look, and, while a code is followed, around what the
    /// motion gate (`unchangedFrameThreshold`) saw change when that is a small part of the frame
    /// (with no code to follow, frames between whole-frame scans are not looked at); a code is
    /// read in its window as the whole-frame scan reads it. A code appearing elsewhere is read at
    /// the next whole-frame scan: 7.5 a second (every 4th frame at 30 fps) reads it within
    /// 100 ms. For real-time input, where it saves most of ZBar's work on a busy camera.
    public var codeWholeFrameRate: Double {
        get { configuration.withLock { $0.code.wholeFrameRate } }
        set { configuration.withLock { $0.code.wholeFrameRate = max(0, newValue) } }
    }

    /// Reads code payloads in this encoding when their bytes are valid in it (nil, the default,
    /// guesses: see `CodePayloadDecoder`). For users whose codes are known to use one.
    public var codeTextEncoding: TextEncoding? {
        get { configuration.withLock { $0.code.textEncoding } }
        set { configuration.withLock { $0.code.textEncoding = newValue } }
    }

    /// Attaches each analysed frame's picture (JPEG as sent, or raw planes) to the `AnalysedFrame`
    /// the delegate gets, for snapshots of the frames events are decided on. Off by default: the
    /// session then copies no pictures for this output.
    public var attachesFramePictures: Bool {
        get { configuration.withLock { $0.attachesFramePictures } }
        set {
            configuration.withLock { $0.attachesFramePictures = newValue }
            requirementsDidChange()
        }
    }
}
