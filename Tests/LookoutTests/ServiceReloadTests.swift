import Foundation
import Lookout
import LookoutService
import Testing

/// Reloads: only what changed restarts; an unchanged camera goes on without a gap.
@Suite struct ServiceReloadTests {
    /// Writes JPEG frames (a QR code in each) into a FIFO, as an MJPEG stream, until told to stop.
    final class FrameFeeder: @unchecked Sendable {
        let path: String
        private let jpeg: Data
        private let handle = Locked<FileHandle?>(nil)
        private let written = Locked(0)

        init() throws {
            path = NSTemporaryDirectory() + "lookout-reload-\(UUID().uuidString).mjpeg"
            jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("frame0.jpg")))
            try #require(mkfifo(path, 0o600) == 0)
        }

        /// Opens the FIFO for writing and writes `count` frames, on a thread of its own: the open
        /// waits for the camera to open it, which then waits for the stream's first bytes.
        func open(writing count: Int) {
            _ = brokenPipesIgnored // the camera may close the FIFO first (a reload, a stop)
            DispatchQueue.global().async { [self] in
                // Close-on-exec: a child another test spawns meanwhile must not hold the FIFO open.
                let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { return }
                let fileHandle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
                for _ in 0..<count { try? fileHandle.write(contentsOf: jpeg) }
                written.withLock { $0 += count }
                handle.withLock { $0 = fileHandle }
            }
        }

        /// Writes `count` frames (blocking while the camera is behind: nothing is dropped).
        func write(_ count: Int) throws {
            let fileHandle = try #require(eventuallyValue { handle.withLock { $0 } })
            for _ in 0..<count { try fileHandle.write(contentsOf: jpeg) }
            written.withLock { $0 += count }
        }

        var framesWritten: Int { written.withLock { $0 } }

        func close() throws {
            try handle.withLock { try $0?.close() }
            unlink(path)
        }
    }

    @Test func aReloadAddsChangesAndRemovesCamerasWhileAnUnchangedOneGoesOnWithoutAGap() async throws {
        let feeder = try FrameFeeder()
        defer { try? feeder.close() }
        let sample = Fixtures.path("sample.mjpeg"), codes = Fixtures.path("events-codes.mjpeg")
        // steady (the FIFO) and changing (sample.mjpeg, its types given as `changingTypes`), and a third camera on events-codes.mjpeg.
        func configuration(changingTypes: String?, third: String) throws -> LookoutConfiguration {
            try ConfigurationFile.parse("""
                detection:
                  types: [qr]
                  code-scan-rate: 0
                cameras:
                  steady:
                    input: \(feeder.path)
                  changing:
                    input: \(sample)
                \(changingTypes.map { "    types: \($0)\n" } ?? "")  \(third):
                    input: \(codes)
                """, file: "reload.yml")
        }
        let before = try configuration(changingTypes: nil, third: "leaving")
        let collector = ServiceCollector()
        // The camera opens the FIFO as the service is built, and waits for a writer and a first frame.
        feeder.open(writing: 90)
        let service = try Service(configuration: before, environment: Service.Environment(output: collector))
        try await service.start()
        let steady = try #require(service.pipelines.first)
        let oldChanging = try #require(service.pipelines.dropFirst().first)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = service.run()
            finished.signal()
        }
        #expect(eventually { collector.lines(of: "steady").count == 90 })
        #expect(collector.kinds(of: "changing") == ["qr"])

        let after = try configuration(changingTypes: "[ean13]", third: "joining")
        let report = try await service.reload(after)
        #expect(report.unchanged == ["steady"])
        #expect(report.restarted == ["changing"])
        #expect(report.stopped == ["leaving"])
        #expect(report.started == ["joining"])
        #expect(report.rebuiltShared == false)
        try feeder.write(90)
        try feeder.close()
        #expect(finished.wait(timeout: .now() + 120) == .success)
        await service.finish()

        // The unchanged camera is the same pipeline, and its frames and times run on without a gap.
        #expect(service.pipelines.first === steady)
        #expect(service.pipelines.map(\.configuration.camera) == ["steady", "changing", "joining"])
        #expect(service.pipelines[1] !== oldChanging)
        let frames = collector.lines(of: "steady").compactMap { $0["frame"] as? Int }
        #expect(frames == Array(0..<180))
        let times = collector.lines(of: "steady").compactMap { $0["pts"] as? Double }
        #expect(times.count == 180)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs(($1 - $0) - 1.0 / 30) < 1e-3 })
        #expect(steady.statistics.framesRead == 180)
        // The changed camera looks for its new kind; the new camera runs; the removed one stopped.
        #expect(collector.kinds(of: "changing").contains("ean13"))
        #expect(collector.lines(of: "joining").count == 35)
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 1, failed: 0))
    }

    @Test func aChangedDefaultRestartsOnlyTheCamerasThatInheritIt() async throws {
        let sample = Fixtures.path("sample.mjpeg")
        func configuration(_ types: String) throws -> LookoutConfiguration {
            try ConfigurationFile.parse("""
                detection:
                  types: \(types)
                cameras:
                  inherits:
                    input: \(sample)
                  overrides:
                    input: \(sample)
                    types: [qr]
                """, file: "defaults.yml")
        }
        let service = try Service(configuration: try configuration("[qr, ean13]"), environment: Service.Environment(output: ServiceCollector()))
        let report = try await service.reload(try configuration("[ean13]"))
        #expect(report.restarted == ["inherits"])
        #expect(report.unchanged == ["overrides"])
        #expect(report.rebuiltShared == false)
        // A service-wide key (the output format) rebuilds the shared parts and every camera.
        var text = try configuration("[ean13]")
        text.settings.format = .text
        let everything = try await service.reload(text)
        #expect(everything.rebuiltShared)
        #expect(everything.restarted == ["inherits", "overrides"])
        service.stop()
        _ = await service.run()
        // A stopped service takes no reload: nothing would run what it started.
        await #expect(throws: ServiceError.self) { try await service.reload(try configuration("[qr]")) }
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 2, failed: 1))
        await service.finish()
    }

    @Test func aReloadThatCannotOpenACameraIsCountedAsFailed() async throws {
        let sample = Fixtures.path("sample.mjpeg")
        let service = try Service(configuration: LookoutConfiguration(cameras: [CameraConfiguration(name: "a", input: sample)]),
                                  environment: Service.Environment(output: ServiceCollector()))
        var broken = service.configuration
        broken.cameras.append(CameraConfiguration(name: "b", input: "/nonexistent/b.mjpeg"))
        await #expect(throws: ServiceError.self) { try await service.reload(broken) }
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 0, failed: 1))
        // What could be applied was: a runs on, b is not there.
        #expect(service.pipelines.map(\.configuration.camera) == ["a"])
        service.stop()
        _ = await service.run()
        await service.finish()
    }
}

/// Polls `value` until it is not nil (60 s at most).
func eventuallyValue<T>(timeout: Double = 60, _ value: () throws -> T?) rethrows -> T? {
    var found: T?
    _ = try eventually(timeout: timeout) {
        found = try value()
        return found != nil
    }
    return found
}
