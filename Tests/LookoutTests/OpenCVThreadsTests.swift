import COpenCV
import Dispatch
import Foundation
import Synchronization
@testable import Lookout
import Testing

/// OpenCV's thread count is process-wide, and its parallel loops share one TBB arena that a new
/// count replaces. A face detection changing the count while a code queue enlarged a region
/// crashed `lookout run` in libtbb; two threads doing just that crashed within milliseconds.
@Suite("OpenCV's thread count")
struct OpenCVThreadsTests {
    /// Counts changed over and over on one thread while others enlarge, sharpen and detect faces
    /// with OpenCV's threads: every call gives what it gives alone, and the process lives (before
    /// OpenCVCall, this crashed it).
    @Test func changingTheThreadCountBesideImageCallsIsSafe() throws {
        let width = 640, height = 360
        let plane = (0..<width * height).map { UInt8(truncatingIfNeeded: ($0 % width) * 7 ^ ($0 / width) * 3) }
        @Sendable func enlarged() -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: 4 * width * height)
            let status = out.withUnsafeMutableBufferPointer { target in
                plane.withUnsafeBufferPointer {
                    lk_double_scale($0.baseAddress!, Int32(width), Int32(height), Int32(width), target.baseAddress!)
                }
            }
            return status == 0 ? out : nil
        }
        @Sendable func sharpened() -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: width * height)
            let status = out.withUnsafeMutableBufferPointer { target in
                plane.withUnsafeBufferPointer {
                    lk_sharpen($0.baseAddress!, Int32(width), Int32(height), Int32(width), 2.0, target.baseAddress!)
                }
            }
            return status == 0 ? out : nil
        }
        // Used by one job at a time: first here, then by the job that detects.
        nonisolated(unsafe) let detector = try FaceDetector(configuration: FaceDetectorConfiguration(cascadePath: Fixtures.packageRoot + "/models/haarcascade_frontalface_default.xml"))
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let region = (x: 0, y: 0, width: image.width, height: image.height)
        let faces = Set(try detector.detect(image, region: region))
        #expect(!faces.isEmpty)
        let expected = (enlarged(), sharpened())
        #expect(expected.0 != nil && expected.1 != nil)

        // Until both jobs are done, the count changes between OpenCV's default and one thread, on
        // a thread of its own: the dispatch pool may run the jobs one after the other.
        let progress = Progress()
        let changerDone = DispatchSemaphore(value: 0)
        Thread {
            while progress.working.load(ordering: .acquiring) > 0 {
                lk_opencv_use_threads(Int32(progress.changes.add(1, ordering: .relaxed).newValue % 2))
            }
            changerDone.signal()
        }.start()
        let differing = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { job in
            if job == 0 {
                for _ in 0..<200 where enlarged() != expected.0 || sharpened() != expected.1 { differing.withLock { $0 += 1 } }
            } else {
                for _ in 0..<20 where (try? detector.detect(image, region: region)).map(Set.init) != faces { differing.withLock { $0 += 1 } }
            }
            progress.working.subtract(1, ordering: .releasing)
        }
        changerDone.wait()
        lk_opencv_use_threads(0)
        #expect(differing.withLock { $0 } == 0)
        #expect(progress.changes.load(ordering: .relaxed) > 2)
    }
}

/// The jobs still working, and the changes of count made meanwhile.
private final class Progress: Sendable {
    let working = Atomic(2)
    let changes = Atomic(0)
}
