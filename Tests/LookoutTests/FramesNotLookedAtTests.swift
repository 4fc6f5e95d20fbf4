import Dispatch
import Foundation
import Testing
@testable import Lookout

/// Frames no detector looks at are not decoded: between whole-frame code scans, with no code to
/// follow and no faces due, a metadata output takes the frame without its pixels.
@Suite(.serialized) struct FramesNotLookedAtTests {
    final class Reports: @unchecked Sendable {
        let frames = Locked<[(sequence: UInt64, time: MediaTime, codes: [String])]>([])
    }

    /// Runs `clip` to its end through a metadata output reading QR codes with the motion gate and
    /// `wholeFrameRate`; the session's statistics and the codes of every analysed frame.
    private func run(_ clip: String, wholeFrameRate: Double) throws -> (CaptureSession.Statistics, [(sequence: UInt64, time: MediaTime, codes: [String])]) {
        let session = CaptureSession()
        try session.addInput(try AssetReaderInput(path: Fixtures.path(clip), frameRate: 30))
        let output = MetadataOutput(codeScanResolution: .automatic)
        try session.addOutput(output)
        try output.setMetadataObjectTypes([.qr])
        output.unchangedFrameThreshold = 4
        output.codeWholeFrameRate = wholeFrameRate
        let reports = Reports()
        output.addReportObserver(reports) { frame, objects in
            let codes = objects.compactMap { ($0 as? MachineReadableCodeObject).map { "\($0.stringValue) \($0.pixelCorners)" } }
            reports.frames.withLock { $0.append((frame.sequence, frame.presentationTime, codes)) }
        }
        let stopped = DispatchSemaphore(value: 0)
        session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
            if case .didStopRunning = event { stopped.signal() }
        }
        session.startRunning()
        #expect(stopped.wait(timeout: .now() + 60) == .success)
        output.drain()
        return (session.statistics, reports.frames.withLock { $0 }.sorted { $0.sequence < $1.sequence })
    }

    /// A face walking and no code, at 30 fps: whole-frame scans 7.5 times a second fall on every
    /// 4th frame, and the 3 between them are not decoded; every frame still has its report.
    @Test func framesBetweenWholeFrameScansWithNothingToFollowAreNotDecoded() throws {
        let (statistics, frames) = try run("face-walk.mjpeg", wholeFrameRate: 7.5)
        #expect(frames.count == 40)
        #expect(frames.allSatisfy { $0.codes.isEmpty })
        #expect(statistics.framesNotDecoded == 30, "3 frames in 4: \(statistics.framesNotDecoded)")
        let (wholeStatistics, wholeFrames) = try run("face-walk.mjpeg", wholeFrameRate: 0)
        #expect(wholeFrames.count == 40)
        #expect(wholeStatistics.framesNotDecoded == 0, "the face moves on every frame")
    }

    /// The QR code appears on frames 15 and 60 (at 30 fps), each time between whole-frame scans
    /// (frames 12 and 16, 60): it is read at most 100 ms later, and then on every frame it is in,
    /// as the whole-frame scans read it.
    @Test func aCodeAppearingBetweenWholeFrameScansIsReadWithin100Milliseconds() throws {
        let (_, frames) = try run("events-codes.mjpeg", wholeFrameRate: 7.5)
        let (_, whole) = try run("events-codes.mjpeg", wholeFrameRate: 0)
        #expect(frames.count == 80 && whole.count == 80)
        let readWhole = Set(whole.filter { !$0.codes.isEmpty }.map(\.sequence))
        let read = Set(frames.filter { !$0.codes.isEmpty }.map(\.sequence))
        #expect(readWhole.count >= 30, "frames holding the code: \(readWhole.count)")
        for appearance in [UInt64(15), 60] {
            try #require(readWhole.contains(appearance) && !readWhole.contains(appearance - 1), "the code appears on frame \(appearance)")
            let first = try #require(read.filter { $0 >= appearance }.min())
            #expect(frames[Int(first)].time.nanoseconds - frames[Int(appearance)].time.nanoseconds <= 100_000_000,
                    "appeared on frame \(appearance), read on \(first)")
        }
        // Read on every frame from then on that the whole-frame scans read it in, at the same corners.
        for frame in frames where !frame.codes.isEmpty {
            #expect(frame.codes == whole[Int(frame.sequence)].codes, "frame \(frame.sequence)")
        }
        #expect(readWhole.subtracting(read).count <= 2, "missed on frames \(readWhole.subtracting(read).sorted())")
    }
}
