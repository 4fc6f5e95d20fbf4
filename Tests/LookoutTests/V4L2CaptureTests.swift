import CV4L2
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Lookout

@Suite("V4L2 capture loop (scripted driver)")
struct V4L2CaptureTests {
    func source(_ driver: ScriptedV4L2Driver, reconnects: Bool = true, watchdog: Double = 0.3) throws -> V4L2CaptureSource {
        let device = try CaptureDevice(path: "/dev/scripted0", driver: driver)
        let choice = FormatChooser.Choice(fourcc: FourCC("GREY")!, width: 64, height: 48, frameRate: 30)
        return try V4L2CaptureSource(path: device.uniqueID, sourceName: device.uniqueID, driver: driver, choice: choice,
                                     controls: [], bufferCount: 4, watchdogSeconds: watchdog, reconnects: reconnects)
    }

    /// Reads frames until `count` arrive (corrupt ones included) or the source ends.
    func frames(_ source: V4L2CaptureSource, count: Int) throws -> [SourceFrame] {
        var result = [SourceFrame]()
        while result.count < count, let frame = try source.nextFrame() { result.append(frame) }
        return result
    }

    @Test func interruptedPollsAndEAGAINStormsAreRetried() throws {
        let driver = ScriptedV4L2Driver(script: Array(repeating: .interrupted, count: 50)
            + Array(repeating: .spuriousWakeup, count: 200)
            + [.frame(sequence: 0, timestampNs: 1_000_000), .interrupted, .spuriousWakeup,
               .frame(sequence: 1, timestampNs: 34_000_000)])
        let source = try source(driver)
        let got = try frames(source, count: 2)
        try #require(got.map(\.sequence) == [0, 1])
        #expect(got.map(\.framesLostBefore) == [0, 0])
        guard case .raw(let bytes, let bytesPerRow) = got[1].payload else { Issue.record("raw frame expected"); return }
        #expect(bytes.count == 64 * 48 && bytesPerRow == 64)
    }

    @Test func sequenceGapsBecomeLostFrames() throws {
        let driver = ScriptedV4L2Driver(script: [
            .frame(sequence: 10, timestampNs: 1_000), .frame(sequence: 11, timestampNs: 2_000),
            .frame(sequence: 15, timestampNs: 6_000), .frame(sequence: 16, timestampNs: 7_000),
        ])
        let got = try frames(try source(driver), count: 4)
        #expect(got.map(\.framesLostBefore) == [0, 0, 3, 0])
        #expect(got.map(\.sequence) == [0, 1, 5, 6])
    }

    @Test func timestampsNeverRunBackwards() throws {
        let driver = ScriptedV4L2Driver(script: [
            .frame(sequence: 0, timestampNs: 5_000_000_000), .frame(sequence: 1, timestampNs: 4_000_000_000),
            .frame(sequence: 2, timestampNs: 5_000_000_000), .frame(sequence: 3, timestampNs: 6_000_000_000),
        ])
        let times = try frames(try source(driver), count: 4).map(\.presentationTime.nanoseconds)
        #expect(times == times.sorted() && Set(times).count == 4)
        #expect(times.first == 5_000_000_000 && times.last == 6_000_000_000)
    }

    @Test func damagedAndEmptyBuffersAreCorruptAndRequeuedAtOnce() throws {
        let driver = ScriptedV4L2Driver(script: [
            .frame(sequence: 0, timestampNs: 1_000, flags: UInt32(V4L2_BUF_FLAG_ERROR)),
            .frame(sequence: 1, timestampNs: 2_000, bytesUsed: 0),
            .frame(sequence: 2, timestampNs: 3_000),
        ])
        let source = try source(driver)
        let got = try frames(source, count: 3)
        try #require(got.count == 3)
        guard case .corrupt = got[0].payload, case .corrupt = got[1].payload, case .raw = got[2].payload else {
            Issue.record("expected corrupt, corrupt, frame")
            return
        }
        // Only the good frame is held; both damaged buffers went straight back to the driver.
        #expect(driver.queuedBuffers == 3)
    }

    @Test func unplugIsReportedThenReconnectsWithoutLeaks() throws {
        var script: [ScriptedV4L2Driver.Step] = []
        var sequence: UInt32 = 0
        for round in 0..<3 {
            for _ in 0..<3 {
                script.append(.frame(sequence: sequence, timestampNs: Int64(sequence + 1) * 1_000_000))
                sequence += 1
            }
            script.append(round == 1 ? .silence : .unplug(opensFailing: 2))
            sequence = 0 // a reopened device counts from 0 again
        }
        script.append(.frame(sequence: 0, timestampNs: 99_000_000))
        let driver = ScriptedV4L2Driver(script: script)
        let source = try source(driver)
        let events = Locked<[String]>([])
        source.setInterruptionHandler { event in
            switch event {
            case .lost(let reason): events.withLock { $0.append("lost: \(reason)") }
            case .restored: events.withLock { $0.append("found") }
            }
        }
        let got = try frames(source, count: 10)
        #expect(got.count == 10)
        #expect(got.map(\.sequence) == Array(0..<10), "our sequence keeps counting across reconnects")
        let seen = events.withLock { $0 }
        try #require(seen.count == 6, "\(seen)")
        #expect(seen.filter { $0 == "found" }.count == 3)
        #expect(seen[2].contains("no frame for"), "the watchdog fired: \(seen)")
        source.cancel()
        #expect(try source.nextFrame() == nil)
        let counts = driver.counts
        // One stream open now; every earlier open closed, every earlier mapping unmapped.
        #expect(counts.openNow == 1)
        #expect(counts.opens == counts.closes + 1)
        #expect(counts.maps == counts.unmaps + 4)
    }

    @Test func withoutReconnectionALossEndsTheStream() throws {
        let driver = ScriptedV4L2Driver(script: [.frame(sequence: 0, timestampNs: 1_000), .unplug(opensFailing: 100)])
        let source = try source(driver, reconnects: false)
        _ = try source.nextFrame()
        #expect(throws: CaptureError.self) { _ = try source.nextFrame() }
        #expect(driver.counts.openNow == 0)
    }

    @Test func sessionDeliversCameraFramesAndReportsGapsAsDiscontinuities() throws {
        let driver = ScriptedV4L2Driver(script: [
            .frame(sequence: 0, timestampNs: 1_000, fill: 10), .frame(sequence: 1, timestampNs: 2_000, fill: 20),
            .frame(sequence: 4, timestampNs: 5_000, fill: 50),
        ])
        let device = try CaptureDevice(path: "/dev/scripted0", driver: driver)
        #expect(device.formats.map(\.description) == ["GREY 64x48"])
        let input = try CaptureDeviceInput(device: device, watchdogTimeout: 5)
        #expect(input.formatDescription.pixelFormat == .gray && input.formatDescription.frameRate == 30)
        let session = CaptureSession()
        try session.addInput(input)
        let video = VideoDataOutput()
        final class Delegate: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
            let luma = Locked<[UInt8]>([])
            let drops = Locked<[FrameDrop]>([])
            func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
                luma.withLock { $0.append(sampleBuffer.imageBuffer[10, 10]) }
            }
            func captureOutput(_ output: VideoDataOutput, didDrop drop: FrameDrop, from connection: CaptureConnection) {
                drops.withLock { $0.append(drop) }
            }
        }
        let delegate = Delegate()
        // Camera input never waits: a busy delegate would lose frames as late. Queue them instead
        // (the pool bounds it), so the frames delivered are exact whatever the machine's load.
        video.alwaysDiscardsLateVideoFrames = false
        video.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "test.video"))
        try session.addOutput(video)
        session.startRunning()
        #expect(eventually { delegate.luma.withLock { $0.count } >= 3 })
        session.stopRunning()
        #expect(delegate.luma.withLock { $0 } == [10, 20, 50])
        let drops = delegate.drops.withLock { $0 }
        #expect(drops.map { $0.reason } == [DropReason.discontinuity])
        #expect(drops.first?.count == 2)
        let counts = driver.counts
        #expect(counts.opens == counts.closes + counts.openNow, "every device opened was closed or is the one in use")
        #expect(counts.openNow <= 1)
    }

    @Test func formatChoicePrefersMJPEGAndAModestSize() {
        func format(_ fourcc: String, _ w: Int, _ h: Int) -> CaptureDevice.Format {
            .init(fourcc: FourCC(fourcc)!, name: fourcc, width: w, height: h, sizeRange: nil,
                  frameRateRanges: [FrameRateRange(minFrameRate: 30, maxFrameRate: 30), FrameRateRange(minFrameRate: 15, maxFrameRate: 15)])
        }
        let formats = [format("YUYV", 640, 480), format("YUYV", 1280, 720), format("MJPG", 1920, 1080),
                       format("MJPG", 1280, 720), format("MJPG", 3840, 2160), format("RGB3", 1280, 720)]
        #expect(FormatChooser.choose(from: formats) == .init(fourcc: FourCC("MJPG")!, width: 1280, height: 720, frameRate: 30))
        #expect(FormatChooser.choose(from: formats, fourcc: FourCC("YUYV"), size: (640, 480))?.width == 640)
        #expect(FormatChooser.choose(from: formats, size: (640, 480))?.fourcc == FourCC("YUYV")!, "an exact size beats preference")
        #expect(FormatChooser.choose(from: formats, frameRate: 20)?.frameRate == 15)
        #expect(FormatChooser.choose(from: [format("RGB3", 640, 480)]) == nil)
        let large = [format("MJPG", 1920, 1080), format("MJPG", 3840, 2160)]
        #expect(FormatChooser.choose(from: large)?.width == 1920, "never simply the largest")
    }
}
