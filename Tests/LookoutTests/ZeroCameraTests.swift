import Foundation
import Lookout
import LookoutService
import Testing

/// A reload to zero cameras (issue 40, part 1): a file naming no camera, with none connected, is
/// refused before anything stops; a reload that leaves no camera running idles the service, its
/// web server answering every route, until a reload brings a camera back or a stop.
@Suite struct ZeroCameraTests {
    typealias FrameFeeder = ServiceReloadTests.FrameFeeder

    /// Collects what the service says on standard error.
    final class Said: @unchecked Sendable {
        private let lines = Locked<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func environment(output: ServiceCollector) -> Service.Environment {
            Service.Environment(output: output, diagnostics: { [lines] line in lines.withLock { $0.append(line) } })
        }
    }

    static let noCameraConnected = CaptureDevice.default(for: .video) == nil

    /// The error `body` threw, if it was a `ServiceError`.
    static func serviceError(_ body: () async throws -> Void) async -> ServiceError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? ServiceError
        }
    }

    static func camera(_ input: String, http: Bool = false) throws -> LookoutConfiguration {
        try ConfigurationFile.parse("""
            detection:
              types: [qr]
            \(http ? "http:\n  http: 127.0.0.1:0\n" : "")cameras:
              door:
                input: \(input)
            """, file: "zero.yml")
    }

    @Test(.enabled(if: noCameraConnected, "a /dev/video* device is connected: a file naming no camera runs it"))
    func aFileNamingNoCameraIsRefusedWithNothingStopped() async throws {
        let feeder = try FrameFeeder()
        defer { try? feeder.close() }
        let collector = ServiceCollector(), said = Said()
        feeder.open(writing: 5)
        let service = try Service(configuration: try Self.camera(feeder.path), environment: said.environment(output: collector))
        try await service.start()
        let running = try #require(service.pipelines.first)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = service.run()
            finished.signal()
        }
        #expect(eventually { collector.lines(of: "door").count == 5 })

        let files = [
            ("absent", "detection:\n  types: [qr]\n"),
            ("null", "detection:\n  types: [qr]\ncameras:\n"),
            ("empty", "detection:\n  types: [qr]\ncameras: {}\n"),
        ]
        for (index, (name, text)) in files.enumerated() {
            let configuration = try ConfigurationFile.parse(text, file: "\(name).yml")
            #expect(configuration.cameras.isEmpty, "\(name)")
            let error = await Self.serviceError { _ = try await service.reload(configuration) }
            guard case .noCameraToReloadTo = error else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
            #expect(error?.description == "the configuration names no camera and none is connected (no /dev/video* capture device)")
            #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 0, failed: index + 1), "\(name)")
            // Nothing stopped: the same pipeline, still the configuration's camera, and its frames go on.
            #expect(service.pipelines.count == 1 && service.pipelines.first === running, "\(name)")
            #expect(service.configuration.cameras.map(\.name) == ["door"], "\(name)")
            let before = collector.lines(of: "door").count
            try feeder.write(5)
            #expect(eventually { collector.lines(of: "door").count == before + 5 }, "\(name): frames after the refusal")
        }
        #expect(running.statistics.framesRead == 20)
        #expect(!said.all.contains { $0.contains("idles") }, "\(said.all)")
        // The camera was never stopped: its input's end ends the run.
        try feeder.close()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        await service.finish()
    }

    @Test func aReloadThatLeavesNoCameraRunningIdlesAndEveryRouteAnswers() async throws {
        let first = try FrameFeeder(), second = try FrameFeeder()
        defer { try? first.close(); try? second.close() }
        let collector = ServiceCollector(), said = Said()
        first.open(writing: 5)
        let service = try Service(configuration: try Self.camera(first.path, http: true), environment: said.environment(output: collector))
        try await service.start()
        let port = try #require(service.webServer?.port)
        let base = "http://127.0.0.1:\(port)"
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = service.run()
            finished.signal()
        }
        #expect(eventually { collector.lines(of: "door").count == 5 })
        #expect(try eventually { try httpGet(base + "/healthz").status == 200 })

        // The only camera's input becomes a missing file: it stops, and cannot be opened.
        var broken = service.configuration
        broken.cameras[0].input = "/nonexistent/lookout-zero-camera.mjpeg"
        let error = await Self.serviceError { _ = try await service.reload(broken) }
        guard case .capture = error else {
            Issue.record("a capture error, not \(String(describing: error))")
            return
        }
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 0, failed: 1))
        #expect(service.pipelines.isEmpty)
        #expect(service.webServer?.cameraNames == [])
        #expect(said.all.contains("reload: no camera is running; the service idles until a reload brings one (or a stop)"), "\(said.all)")

        let health = try httpGet(base + "/healthz")
        #expect(health.status == 503, "\(health.text)")
        #expect(health.json?["status"] as? String == "unavailable", "\(health.text)")
        #expect(health.json?["input"] as? String == "none", "\(health.text)")
        #expect((health.json?["cameras"] as? [String: Any])?.isEmpty == true, "\(health.text)")
        for path in ["/api/status", "/api/status?camera=door", "/api/latest.jpg", "/api/stream.mjpeg", "/api/recordings",
                     "/snapshots/x.jpg", "/recordings/x.mkv"] {
            let answer = try httpGet(base + path)
            #expect(answer.status == 404 && answer.text == "no camera is running\n", "\(path): \(answer.status) \(answer.text)")
        }
        let metrics = try httpGet(base + "/metrics")
        #expect(metrics.status == 200 && metrics.contentType.hasPrefix("text/plain"), "\(metrics.status) \(metrics.contentType)")
        let page = try httpGet(base + "/")
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        let events = try httpGet(base + "/api/events", ["-I"])
        #expect(events.status == 200 && events.contentType.hasPrefix("text/event-stream"), "\(events.status) \(events.contentType)")
        // The server's settings came from a file: a refusal names its key, not an option.
        let rebound = try httpGet(base + "/api/status", ["-H", "Host: evil.example"])
        #expect(rebound.status == 403 && rebound.text.contains("name it in http-allowed-host to allow it"), "\(rebound.text)")
        // Every route answered, and the run goes on: it idles.
        #expect(finished.wait(timeout: .now()) == .timedOut, "run() returned with no camera")

        // A reload that brings a camera back ends the idling: health is ok again.
        second.open(writing: 5)
        let report = try await service.reload(try Self.camera(second.path, http: true))
        #expect(report.started == ["door"] && report.restarted.isEmpty && report.stopped.isEmpty, "\(report)")
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 1, failed: 1))
        #expect(eventually { collector.lines(of: "door").count == 10 })
        var healthy: HTTPAnswer?
        #expect(try eventually { healthy = try httpGet(base + "/healthz"); return healthy?.status == 200 }, "\(healthy?.text ?? "")")
        #expect(healthy?.json?["status"] as? String == "ok" && healthy?.json?["input"] as? String == "streaming", "\(healthy?.text ?? "")")
        #expect(try httpGet(base + "/api/status").status == 200)
        #expect(finished.wait(timeout: .now()) == .timedOut)

        service.stop()
        #expect(finished.wait(timeout: .now() + 60) == .success, "stop() ends the run")
        await service.finish()
    }

    @Test func aStopWhileIdlingEndsTheRun() async throws {
        let feeder = try FrameFeeder()
        defer { try? feeder.close() }
        let collector = ServiceCollector(), said = Said()
        feeder.open(writing: 5)
        let service = try Service(configuration: try Self.camera(feeder.path), environment: said.environment(output: collector))
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = service.run()
            finished.signal()
        }
        #expect(eventually { collector.lines(of: "door").count == 5 })
        var broken = service.configuration
        broken.cameras[0].input = "/nonexistent/lookout-zero-camera.mjpeg"
        #expect(await Self.serviceError { _ = try await service.reload(broken) } != nil)
        #expect(service.pipelines.isEmpty)
        #expect(said.all.contains("reload: no camera is running; the service idles until a reload brings one (or a stop)"), "\(said.all)")
        // A second failing reload while idling idles on, and is not said again as a new idling.
        #expect(await Self.serviceError { _ = try await service.reload(broken) } != nil)
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 0, failed: 2))
        #expect(finished.wait(timeout: .now()) == .timedOut, "run() returned with no camera")
        service.stop()
        #expect(finished.wait(timeout: .now() + 60) == .success, "stop() ends the idling run")
        // Stopped: reloads are refused from now on.
        let after = await Self.serviceError { _ = try await service.reload(try Self.camera(feeder.path)) }
        guard case .stopped = after else {
            Issue.record("refused as stopped, not \(String(describing: after))")
            return
        }
        await service.finish()
    }

    /// The settings of the binary's file: a paced clip, read for QR codes.
    static let settings = "capture:\n  realtime: true\ndetection:\n  types: [qr]\n  motion-threshold: 0\n"

    static func steadyLines(_ lines: [String]) -> Int { lines.filter { $0.contains("\"camera\":\"steady\"") }.count }

    /// Runs `lookout run --config FILE --http 127.0.0.1:0`, FILE's camera `steady` reading a paced
    /// 60 s clip; once its first line is out, `body` gets the process, the server's base URL, FILE
    /// and its folder (removed afterwards, with the clip). Then SIGINT: the process exits 0.
    static func runOnAClip(_ body: (BackgroundProcess, String, String, String) throws -> Void) throws -> BackgroundProcess {
        let clip = try ConfigReloadCommandTests.longClip(seconds: 60)
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let scratch = try ScratchFolder(), folder = scratch.path
        let file = folder + "/lookout.yml"
        try (settings + "cameras:\n  steady:\n    input: \(clip)\n").write(toFile: file, atomically: true, encoding: .utf8)
        let (process, base) = try startLookoutWithHTTP(["--config", file])
        defer { if process.isRunning { process.signal(SIGKILL) } }
        #expect(process.output.wait(timeout: 60) { steadyLines($0) > 0 })
        try body(process, base, file, folder)
        process.signal(SIGINT)
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines)")
        return process
    }

    /// Through the binary: a SIGHUP to a file naming no camera is refused in one line, the camera
    /// goes on, and /healthz still answers (the original bug: SIGILL reading the first of no cameras).
    @Test(.enabled(if: noCameraConnected, "a /dev/video* device is connected: a file naming no camera runs it"))
    func sighupToAFileNamingNoCameraIsRefusedAndHealthStillAnswers() throws {
        let refusal = "lookout: reload refused, nothing changed: the configuration names no camera and none is connected (no /dev/video* capture device)"
        let process = try Self.runOnAClip { process, base, file, _ in
            for (index, text) in [Self.settings, Self.settings + "cameras:\n"].enumerated() {
                try text.write(toFile: file, atomically: true, encoding: .utf8)
                process.signal(SIGHUP)
                #expect(process.errors.wait(timeout: 60) { $0.filter { $0 == refusal }.count == index + 1 }, "\(process.errors.lines)")
                let before = Self.steadyLines(process.output.lines)
                #expect(process.output.wait(timeout: 60) { Self.steadyLines($0) > before + 30 }, "the camera goes on")
                let health = try httpGet(base + "/healthz")
                #expect(health.status == 200 && health.json?["input"] as? String == "streaming", "\(health.status) \(health.text)")
                #expect((health.json?["cameras"] as? [String: Any])?.keys.sorted() == ["steady"], "\(health.text)")
                #expect(process.isRunning, "\(process.errors.lines)")
            }
        }
        #expect(!process.errors.lines.contains { $0.contains("idles") || $0.contains("reloaded") }, "\(process.errors.lines)")
    }

    /// Through the binary: a SIGHUP whose only camera cannot be opened idles the process, health
    /// says so, and a SIGINT then ends it cleanly (not as an input that ended).
    @Test func sighupThatLeavesNoCameraRunningIdlesTheProcessUntilStopped() throws {
        let process = try Self.runOnAClip { process, base, file, folder in
            // A file that exists (the check passes) and is no video (opening it fails).
            let notVideo = folder + "/not-video.mjpeg"
            try "not a video\n".write(toFile: notVideo, atomically: true, encoding: .utf8)
            try (Self.settings + "cameras:\n  steady:\n    input: \(notVideo)\n").write(toFile: file, atomically: true, encoding: .utf8)
            process.signal(SIGHUP)
            let idles = "lookout: reload: no camera is running; the service idles until a reload brings one (or a stop)"
            #expect(process.errors.wait(timeout: 60) { $0.contains(idles) && $0.contains { $0.hasPrefix("lookout: reload of \(file) failed: ") } },
                    "\(process.errors.lines)")
            let health = try httpGet(base + "/healthz")
            #expect(health.status == 503 && health.text == #"{"status":"unavailable","input":"none","cameras":{}}"# + "\n", "\(health.status) \(health.text)")
            let status = try httpGet(base + "/api/status")
            #expect(status.status == 404 && status.text == "no camera is running\n", "\(status.status) \(status.text)")
            #expect(process.isRunning, "\(process.errors.lines)")
        }
        // Stopped, not ended: no word of an input that ended and a web view that stays up.
        #expect(!process.errors.lines.contains { $0.contains("input ended") }, "\(process.errors.lines)")
    }
}
