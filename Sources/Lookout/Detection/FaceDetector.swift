import COpenCV
#if canImport(Glibc)
import Glibc
#endif

/// OpenCV's Haar-cascade detector over a luma plane, through the C API in COpenCV.
final class FaceDetector {
    private let cascade: OpaquePointer
    let configuration: FaceDetectorConfiguration
    private var found: [lk_rect]
    private var message = [CChar](repeating: 0, count: 512)

    static let maximumFaces = 64

    init(configuration: FaceDetectorConfiguration) throws(CaptureError) {
        var message = [CChar](repeating: 0, count: 512)
        guard configuration.scaleFactor > 1, configuration.minNeighbors >= 0, configuration.minSize >= 0 else {
            throw .faceModelUnavailable(path: configuration.cascadePath,
                                        reason: "scale factor must be above 1 and sizes not negative")
        }
        // Checked here so the message names the cause, and OpenCV does not print its own.
        guard access(configuration.cascadePath, R_OK) == 0 else {
            throw .faceModelUnavailable(path: configuration.cascadePath, reason: Errno.current.description)
        }
        guard let cascade = lk_cascade_open(configuration.cascadePath, &message, message.count) else {
            throw .faceModelUnavailable(path: configuration.cascadePath, reason: String(nulTerminated: message))
        }
        self.cascade = cascade
        self.configuration = configuration
        self.found = Array(repeating: lk_rect(), count: Self.maximumFaces)
    }

    deinit { lk_cascade_close(cascade) }

    /// Faces inside `region` of the plane, as pixel rectangles of the whole frame.
    /// - Parameters:
    ///   - scale: frame pixels per plane pixel (2 for a plane decoded at half size): the smallest
    ///     face, set in frame pixels, shrinks by it, and the faces found grow by it.
    ///   - singleThreaded: runs the cascade on the calling thread only. Beside a code
    ///     queue that reads every frame, OpenCV's worker threads only compete with it for the cores
    ///     (the CPU time is the same, measured), so rate-limited face analysis runs this way.
    func detect(_ pixels: PixelBuffer, region: (x: Int, y: Int, width: Int, height: Int),
                scale: (x: Double, y: Double) = (1, 1), singleThreaded: Bool = false) throws(CaptureError) -> [Rect] {
        let origin = pixels.baseAddress.advanced(by: region.y * pixels.bytesPerRow + region.x)
            .assumingMemoryBound(to: UInt8.self)
        let minSize = Int32((Double(configuration.minSize) / scale.x).rounded())
        var parameters = lk_cascade_params(
            scale_factor: configuration.scaleFactor, min_neighbors: Int32(configuration.minNeighbors),
            min_width: minSize, min_height: minSize,
            max_width: 0, max_height: 0, analysis_width: Int32(configuration.analysisWidth),
            threads: singleThreaded ? 1 : 0)
        let count = lk_cascade_detect(cascade, origin, Int32(region.width), Int32(region.height),
                                      Int32(pixels.bytesPerRow), &parameters, &found, Int32(found.count),
                                      &message, message.count)
        guard count >= 0 else { throw .detectorFailed(String(nulTerminated: message)) }
        return found.prefix(Int(min(count, Int32(found.count)))).map {
            Rect(x: Double(Int($0.x) + region.x) * scale.x, y: Double(Int($0.y) + region.y) * scale.y,
                 width: Double($0.width) * scale.x, height: Double($0.height) * scale.y)
        }
    }
}
