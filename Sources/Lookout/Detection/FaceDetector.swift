import COpenCV
#if canImport(Glibc)
import Glibc
#endif

/// OpenCV's Haar-cascade detector over a luma plane, through the C API in COpenCV.
final class FaceDetector {
    /// The cascades, loaded once for every detector of the same files (`lk_cascade_set`).
    private let cascades: OpaquePointer
    /// The calling thread's parsed copy of `cascades`: detection on one copy is not safe from
    /// two threads, and a copy per detector thread, not per camera, bounds the memory.
    private var cascade: OpaquePointer? { lk_cascade_set_cascade(cascades) }
    /// Parsed copies of this detector's model files, across threads and detectors.
    var cascadeCopies: Int { Int(lk_cascade_set_copies(cascades)) }
    let configuration: FaceDetectorConfiguration
    private var found: [lk_rect]
    private var message = [CChar](repeating: 0, count: 512)

    static let maximumFaces = 64

    init(configuration: FaceDetectorConfiguration) throws(CaptureError) {
        var message = [CChar](repeating: 0, count: 512)
        try Self.check(configuration)
        let paths = [configuration.cascadePath, configuration.verificationCascadePath,
                     configuration.profileVerificationCascadePath]
        for case let path? in paths { try Self.checkModelFile(path) }
        var failed: Int32 = 0
        let opened = paths[0]!.withPlatformPath { frontal in
            Self.withOptionalPath(paths[1]) { verifier in
                Self.withOptionalPath(paths[2]) { profile in
                    lk_cascade_set_open(frontal, verifier, profile, &failed, &message, message.count)
                }
            }
        }
        guard let opened else {
            throw .faceModelUnavailable(path: paths[Int(failed)] ?? paths[0]!, reason: "it is not a Haar cascade",
                                        detail: String(nulTerminated: message))
        }
        self.cascades = opened
        self.configuration = configuration
        self.found = Array(repeating: lk_rect(), count: Self.maximumFaces)
    }

    deinit { lk_cascade_set_close(cascades) }

    private static func withOptionalPath<Result>(_ path: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let path else { return body(nil) }
        return path.withPlatformPath { body($0) }
    }

    /// Checked before OpenCV reads the file, so the message names the cause in a few words;
    /// OpenCV's own text about a file it cannot parse is kept as the detail.
    private static func checkModelFile(_ path: String) throws(CaptureError) {
        var info = stat()
        guard path.withPlatformPath({ stat($0, &info) }) == 0, path.withPlatformPath({ access($0, R_OK) }) == 0 else {
            throw .faceModelUnavailable(path: path, reason: Errno.current == .noSuchFileOrDirectory ? "no such file" : Errno.current.description)
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw .faceModelUnavailable(path: path, reason: "it is a directory") }
        guard info.st_size > 0 else { throw .faceModelUnavailable(path: path, reason: "it is an empty file") }
    }

    /// The settings' ranges, checked before any of them reaches OpenCV (or a 32-bit integer).
    private static func check(_ configuration: FaceDetectorConfiguration) throws(CaptureError) {
        func refuse(_ reason: String) -> CaptureError { .invalidSetting("face detector: \(reason)") }
        guard configuration.scaleFactor > 1, configuration.scaleFactor <= 100 else {
            throw refuse("the scale factor \(configuration.scaleFactor) is not above 1 and at most 100")
        }
        guard (0...1000).contains(configuration.minNeighbors) else {
            throw refuse("\(configuration.minNeighbors) neighbours is not between 0 and 1000")
        }
        guard (0...Self.maximumSide).contains(configuration.minSize) else {
            throw refuse("a smallest face of \(configuration.minSize) pixels is not between 0 and \(Self.maximumSide)")
        }
        guard (0...Self.maximumSide).contains(configuration.analysisWidth) else {
            throw refuse("an analysis width of \(configuration.analysisWidth) pixels is not between 0 and \(Self.maximumSide)")
        }
        guard (0...1000).contains(configuration.verificationMinNeighbors),
              (0...1000).contains(configuration.profileVerificationMinNeighbors),
              (0...1000).contains(configuration.joinMinNeighbors) else {
            throw refuse("\(configuration.verificationMinNeighbors) or \(configuration.profileVerificationMinNeighbors) verification neighbours is not between 0 and 1000")
        }
        guard configuration.maximumPyramidPixels >= 64 * 64 else {
            throw refuse("a pyramid of \(configuration.maximumPyramidPixels) pixels is too small to search")
        }
    }

    /// Sizes are at most this many pixels across: JPEG's own limit.
    static let maximumSide = 65535

    /// The width to shrink a `width` x `height` region to before detection: the configured
    /// analysis width, or less when the image pyramid would exceed its bound.
    func analysisWidth(forWidth width: Int, height: Int) -> Int {
        var analysed = configuration.analysisWidth > 0 ? min(width, configuration.analysisWidth) : width
        let analysedHeight = Double(height) * Double(analysed) / Double(width)
        let factor = configuration.scaleFactor * configuration.scaleFactor
        let pyramid = Double(analysed) * analysedHeight * factor / (factor - 1)
        let limit = Double(configuration.maximumPyramidPixels)
        if pyramid > limit {
            analysed = max(1, Int((Double(analysed) * (limit / pyramid).squareRoot()).rounded(.down)))
        }
        return analysed == width ? 0 : analysed
    }

    /// The step between scales at most of a window around a followed face (its sizes known):
    /// finer than video's 1.25, as such a window is small. At 1.25 a window found the face of the bench clip in 71-79 of the 90 analyses the
    /// whole search found it in; at 1.15 in 91, for a third of the whole search's time.
    static let windowScaleFactor = 1.15

    /// A part of the searched region to look in alone, at the region's own analysis scale: a
    /// face being followed (with the sizes it may have now), or a part of the picture that moved.
    struct Window {
        /// In plane pixels, inside the region.
        var pixels: (x: Int, y: Int, width: Int, height: Int)
        /// Face sides to look for, in frame pixels; nil for every size the settings allow.
        var faceSides: ClosedRange<Double>?
    }

    /// Faces inside `region` of the plane, as pixel rectangles of the whole frame.
    /// - Parameters:
    ///   - scale: frame pixels per plane pixel (2 for a plane decoded at half size): the smallest
    ///     face, set in frame pixels, shrinks by it, and the faces found grow by it.
    ///   - singleThreaded: runs the cascade on the calling thread only. Beside a code
    ///     queue that reads every frame, OpenCV's worker threads only compete with it for the cores
    ///     (the CPU time is the same, measured), so rate-limited face analysis runs this way.
    ///   - trusted: faces verified before, in frame pixels: candidates overlapping them skip the
    ///     verifier (video: a face is verified once, when it appears).
    ///   - window: searches only this part of the region, shrunk as the whole region would be, so
    ///     that a face is found there as the whole search would find it, at a fraction of the cost.
    func detect(_ pixels: PixelBuffer, region: (x: Int, y: Int, width: Int, height: Int),
                scale: (x: Double, y: Double) = (1, 1), singleThreaded: Bool = false,
                trusted: [Rect] = [], window: Window? = nil) throws(CaptureError) -> [Rect] {
        // Every value below is in range (see check): the conversions cannot trap.
        var minimum = Double(configuration.minSize)
        if configuration.minSizeIsAtAnalysisWidth, configuration.analysisWidth > 0 {
            // Shrunk copy pixels to frame pixels.
            minimum *= max(1, Double(region.width) * max(scale.x, 1) / Double(configuration.analysisWidth))
        }
        var maximum = 0.0
        var searched = region
        var analysedWidth = analysisWidth(forWidth: region.width, height: region.height)
        if let window {
            // The region's shrink factor, applied to the window.
            let shrink = analysedWidth > 0 ? Double(region.width) / Double(analysedWidth) : 1
            searched = window.pixels
            if shrink > 1 {
                // On the region's own grid of shrunk pixels (whole steps from its origin), so that
                // the window's shrunk pixels are the region's.
                let left = region.x + Int((Double(searched.x - region.x) / shrink).rounded(.down) * shrink)
                let top = region.y + Int((Double(searched.y - region.y) / shrink).rounded(.down) * shrink)
                analysedWidth = max(1, Int((Double(searched.x + searched.width - left) / shrink).rounded(.up)))
                let width = min(region.x + region.width - left, Int((Double(analysedWidth) * shrink).rounded()))
                let height = min(region.y + region.height - top, searched.y + searched.height - top)
                searched = (left, top, width, height)
                analysedWidth = min(analysedWidth, Int((Double(width) / shrink).rounded()))
            } else {
                analysedWidth = 0
            }
            if let sides = window.faceSides {
                minimum = max(minimum, sides.lowerBound)
                maximum = max(minimum, sides.upperBound)
            }
        }
        let origin = pixels.baseAddress.advanced(by: searched.y * pixels.bytesPerRow + searched.x)
            .assumingMemoryBound(to: UInt8.self)
        let minSize = Int32(min(Double(Self.maximumSide), (minimum / max(scale.x, 1)).rounded()))
        let maxSize = Int32(min(Double(Self.maximumSide), (maximum / max(scale.x, 1)).rounded()))
        var parameters = lk_cascade_params(
            scale_factor: window?.faceSides != nil ? min(configuration.scaleFactor, Self.windowScaleFactor) : configuration.scaleFactor, min_neighbors: Int32(configuration.minNeighbors),
            min_width: minSize, min_height: minSize,
            max_width: maxSize, max_height: maxSize,
            analysis_width: Int32(analysedWidth),
            threads: singleThreaded ? 1 : 0,
            verify_min_neighbors: configuration.verificationCascadePath == nil ? 0 : Int32(max(1, configuration.verificationMinNeighbors)),
            profile_min_neighbors: configuration.profileVerificationCascadePath == nil ? 0
                : Int32(max(1, configuration.profileVerificationMinNeighbors)),
            join_min_neighbors: configuration.verificationCascadePath == nil || window != nil ? 0 : Int32(configuration.joinMinNeighbors),
            trusted: nil, trusted_count: 0)
        let region = searched
        // Frame pixels to the region's plane pixels, as the cascade sees the image passed in.
        let known = trusted.prefix(Self.maximumFaces).map {
            lk_rect(x: Int32(($0.x / scale.x).rounded()) - Int32(region.x), y: Int32(($0.y / scale.y).rounded()) - Int32(region.y),
                    width: Int32(($0.width / scale.x).rounded()), height: Int32(($0.height / scale.y).rounded()))
        }
        let count = known.withUnsafeBufferPointer { known in
            parameters.trusted = known.baseAddress
            parameters.trusted_count = Int32(known.count)
            defer { parameters.trusted = nil }
            return lk_cascade_detect(cascade, origin, Int32(region.width), Int32(region.height),
                                     Int32(pixels.bytesPerRow), &parameters, &found, Int32(found.count),
                                     &message, message.count)
        }
        guard count >= 0 else { throw .detectorFailed(String(nulTerminated: message)) }
        return found.prefix(Int(min(count, Int32(found.count)))).map {
            Rect(x: Double(Int($0.x) + region.x) * scale.x, y: Double(Int($0.y) + region.y) * scale.y,
                 width: Double($0.width) * scale.x, height: Double($0.height) * scale.y)
        }
    }
}
