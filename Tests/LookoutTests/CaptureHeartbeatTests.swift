import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Lookout

/// A capture loop's sign of life (what systemd's watchdog is pinged on): its bound, and the beats
/// of a camera that is lost and retried, when no frame comes to beat.
@Suite struct CaptureHeartbeatTests {
    @Test func aLoopIsAliveWithinTwiceItsLongestWaitAndAtLeastTenSeconds() {
        let second: Int64 = 1_000_000_000
        let heartbeat = CaptureHeartbeat()
        // Not running: nothing to hang.
        #expect(heartbeat.isAlive(at: 1_000 * second))
        #expect(heartbeat.silence(at: 1_000 * second) == nil)

        heartbeat.start(longestWait: 1, now: 100 * second)
        #expect(heartbeat.bound == 10)
        #expect(heartbeat.isAlive(at: 110 * second))
        #expect(!heartbeat.isAlive(at: 110 * second + 1))
        #expect(heartbeat.silence(at: 112 * second) == 12)
        heartbeat.beat(at: 111 * second)
        #expect(heartbeat.isAlive(at: 121 * second))

        heartbeat.start(longestWait: 30, now: 200 * second)
        #expect(heartbeat.bound == 60)
        #expect(heartbeat.isAlive(at: 260 * second))
        #expect(!heartbeat.isAlive(at: 261 * second))
        heartbeat.stop()
        #expect(heartbeat.isAlive(at: 1_000 * second))
    }

    @Test func eachInputSaysItsLongestWait() throws {
        let driver = ScriptedV4L2Driver(script: [])
        let device = try CaptureDevice(path: "/dev/scripted0", driver: driver)
        let choice = FormatChooser.Choice(fourcc: FourCC("GREY")!, width: 64, height: 48, frameRate: 30)
        // A camera: its watchdog's poll, or the longest backoff (4 s).
        for (watchdog, longest) in [(3.0, 4.0), (30.0, 30.0)] {
            let camera = try V4L2CaptureSource(path: device.uniqueID, sourceName: device.uniqueID, driver: driver, choice: choice,
                                               controls: [], bufferCount: 4, watchdogSeconds: watchdog, reconnects: true)
            #expect(camera.longestWait == longest)
        }
        // A file paced by the clock waits a frame's interval; read as fast as possible, nothing.
        let paced = try AssetReaderInput(path: Fixtures.path("sample.mjpeg"), pacing: .realTime, frameRate: 0.5)
        #expect(paced.source.longestWait == 2)
        let fast = try AssetReaderInput(path: Fixtures.path("sample.mjpeg"))
        #expect(fast.source.longestWait == 0)
    }

    @Test func aLostCameraBeatsWhileItIsRetriedWithoutAFrame() throws {
        let driver = ScriptedV4L2Driver(script: [.frame(sequence: 0, timestampNs: 1_000), .frame(sequence: 1, timestampNs: 2_000),
                                                 .until { false }])
        let device = try CaptureDevice(path: "/dev/scripted0", driver: driver)
        let input = try CaptureDeviceInput(device: device, watchdogTimeout: 5)
        let session = CaptureSession()
        try session.addInput(input)
        let lostAt = Atomic<Int64>(0)
        session.setEventHandler(queue: DispatchQueue(label: "test.events")) { event in
            if case .wasInterrupted = event { lostAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed) }
        }
        session.startRunning()
        defer { session.stopRunning() }
        #expect(eventually { session.statistics.framesRead == 2 })
        // Unplugged and kept away: opens fail, the source retries with backoff, no frame comes.
        driver.unplug()
        #expect(eventually { lostAt.load(ordering: .relaxed) != 0 })
        let lost = lostAt.load(ordering: .relaxed)
        // A beat after the loss was reported: only a retry can have made it.
        #expect(eventually {
            let now = MonotonicClock.nanoseconds()
            return (session.heartbeat.silence(at: now) ?? .infinity) < Double(now - lost) / 1e9
        })
        #expect(session.statistics.framesRead == 2)
        #expect(session.heartbeat.bound == CaptureHeartbeat.minimumBound)
        #expect(session.heartbeat.isAlive())
    }
}
