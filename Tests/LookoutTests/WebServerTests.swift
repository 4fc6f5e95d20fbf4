import Foundation
@testable import Lookout
import LookoutHTTP
import Testing

/// An HTTP answer, from curl.
struct HTTPAnswer {
    var status: Int
    var contentType: String
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
}

/// GET with curl, a real HTTP client: status, content type and body.
func httpGet(_ url: String, _ options: [String] = []) throws -> HTTPAnswer {
    let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-http-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: bodyFile) }
    let process = Process()
    process.environment = childEnvironment([:])
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-g", "--max-time", "10", "-o", bodyFile.path, "-w", "%{http_code} %{content_type}"] + options + [url]
    let out = Pipe()
    process.standardOutput = out
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let written = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = written.split(separator: " ", maxSplits: 1)
    return HTTPAnswer(status: Int(parts.first ?? "") ?? 0, contentType: parts.count > 1 ? String(parts[1]) : "",
                      body: (try? Data(contentsOf: bodyFile)) ?? Data())
}

/// The size a JPEG image declares.
func jpegSize(_ data: Data) throws -> (width: Int, height: Int) {
    try Array(data).withUnsafeBytes { try JPEGDecoder().size(of: $0) }
}

/// Starts `lookout run ARGS --http 127.0.0.1:0` and returns it with the server's base URL; with
/// `outputFile`, standard output goes there rather than to `output`; `input` is written to its
/// standard input first (an input on standard input is read before the server starts).
/// Runs a script of Tests/Browser (headless Chromium on the web view): its exit status and its
/// one-line JSON report.
func browserCheck(_ script: String, _ arguments: [String]) throws -> (status: Int32, report: String) {
    let check = try BackgroundProcess(Fixtures.packageRoot + "/Tests/Browser/" + script, arguments)
    let status = check.waitForExit(timeout: 300)
    return (status, check.output.lines.joined(separator: "\n"))
}

func startLookoutWithHTTP(_ arguments: [String], withInput: Bool = false, input: Data? = nil,
                          outputFile: String? = nil) throws -> (BackgroundProcess, String) {
    let command = ["run"] + arguments + ["--http", "127.0.0.1:0"]
    let process = try outputFile.map {
        try BackgroundProcess("/bin/sh", ["-c", #"exec "$0" "$@" > "$LOOKOUT_OUTPUT_FILE""#, lookoutBinary] + command,
                              environment: ["LOOKOUT_OUTPUT_FILE": $0], withInput: withInput)
    } ?? BackgroundProcess(lookoutBinary, command, withInput: withInput)
    if let input { try process.write(input) }
    var base: String?
    _ = process.errors.wait(timeout: 30) { lines in
        base = lines.lazy.compactMap { line -> String? in
            guard let range = line.range(of: "web view at ") else { return nil }
            return String(line[range.upperBound...].dropLast()) // without the final slash
        }.first
        return base != nil
    }
    let url = try #require(base, "no 'web view at' line: \(process.errors.lines)")
    return (process, url)
}

@Suite("Web view and API", .serialized)
struct WebServerTests {
    @Test func everyRouteAnswersAndTheEventStreamCarriesTheStandardOutputLines() throws {
        let snapshots = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-snapshots-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: snapshots) }
        let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-recordings-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        // Two seconds of empty frames on standard input (a live input: read as they come); the
        // sample follows once the event stream is connected, so it sees every line.
        let blank = try PictureRenderer().jpeg(of: FramePicture(copying: [UInt8](repeating: 200, count: 1280 * 720),
                                                                width: 1280, height: 720, pixelFormat: .gray))
        let (lookout, base) = try startLookoutWithHTTP(
            ["--input", "door=-", "--events", "changes", "--stats", "--snapshots", snapshots, "--record", recordings],
            withInput: true, input: Data(Array([[UInt8]](repeating: blank, count: 60).joined())))
        let events = try BackgroundProcess("/usr/bin/curl", ["-sN", base + "/api/events"])
        #expect(events.output.wait(timeout: 60) { $0.contains(": lookout events") })
        try lookout.write(Data(try Fixtures.bytes("sample.mjpeg")))
        try lookout.closeInput()
        #expect(lookout.output.wait(timeout: 60) { $0.contains { $0.contains(#""kind":"stats""#) } }, "the input never ended")
        let stdoutLines = lookout.output.lines.filter { !$0.contains(#""kind":"stats""#) }
        let kinds = stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["kind"] as? String }
        #expect(kinds == ["code", "code", "face_enter", "presence", "recording"], "\(stdoutLines)")
        #expect(events.output.wait(timeout: 60) { $0.filter { $0.hasPrefix("data: ") }.count >= stdoutLines.count },
                "\(events.output.lines)")
        #expect(events.output.lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) } == stdoutLines,
                "SSE data lines equal standard output's")
        events.signal(SIGTERM)

        let page = try httpGet(base + "/")
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        #expect(page.text.contains(#"<svg id="boxes""#))
        for external in [#"src="http"#, #"href="http"#, "url(http", "@import", "fetch(\"http"] {
            #expect(!page.text.contains(external), "self-contained: nothing fetched from elsewhere (\(external))")
        }

        let status = try #require(try httpGet(base + "/api/status").json)
        #expect(status["kind"] as? String == "status" && status["input"] as? String == "ended")
        #expect(status["frames_read"] as? Int == 120)
        let objects = (status["objects"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        #expect(objects.sorted() == ["ean13", "face", "qr"], "the last frame's objects: \(objects)")
        #expect((status["recent_events"] as? [[String: Any]])?.count == stdoutLines.count)

        let latest = try httpGet(base + "/api/latest.jpg")
        #expect(latest.status == 200 && latest.contentType == "image/jpeg")
        #expect(try jpegSize(latest.body) == (1280, 720))
        let small = try httpGet(base + "/api/latest.jpg?boxes=1&h=360")
        #expect(try jpegSize(small.body) == (640, 360))
        #expect(try httpGet(base + "/api/latest.jpg?h=0").status == 400)

        let stream = try httpGet(base + "/api/stream.mjpeg?boxes=1", ["--max-time", "3"])
        #expect(stream.contentType.hasPrefix("multipart/x-mixed-replace"))
        #expect(stream.text.contains("--lookout-frame") && stream.text.contains("Content-Type: image/jpeg"))

        let health = try httpGet(base + "/healthz")
        #expect(health.status == 200 && health.json?["input"] as? String == "ended")

        // Metrics: accepted by Prometheus's own checker, and equal to the stats line.
        let metrics = try httpGet(base + "/metrics")
        #expect(metrics.status == 200)
        let check = Process()
        check.environment = childEnvironment([:])
        check.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        check.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        check.standardInput = input
        check.standardOutput = output
        check.standardError = output
        _ = brokenPipesIgnored
        try check.run()
        try input.fileHandleForWriting.write(contentsOf: metrics.body)
        try input.fileHandleForWriting.close()
        let complaints = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "promtool: \(complaints)")
        let stats = try #require(lookout.output.lines.first { $0.contains(#""kind":"stats""#) })
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])
        // Each series carries the camera's name.
        let camera = try #require(summary["camera"] as? String)
        #expect(camera == "door")
        func metric(_ name: String, _ label: String? = nil) -> Int? {
            let series = name + #"{camera=""# + camera + "\"" + (label.map { "," + $0 } ?? "") + "} "
            return metrics.text.split(separator: "\n").first { $0.hasPrefix(series) }.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        }
        #expect(metric("lookout_frames_read_total") == summary["frames_read"] as? Int)
        #expect(metric("lookout_frames_analysed_total") == summary["frames_analysed"] as? Int)
        for (reason, count) in try #require(summary["dropped"] as? [String: Int]) {
            #expect(metric("lookout_frames_dropped_total", #"reason="\#(reason)""#) == count)
        }
        for (type, count) in try #require(summary["detections"] as? [String: Int]) {
            #expect(metric("lookout_detections_total", #"type="\#(type)""#) == count)
        }

        // Snapshots: named in the event lines, on disk, served by exact name only.
        let named = stdoutLines.compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["snapshot"] as? String
        }
        #expect(named.count == 4)
        for name in named {
            let file = try Data(contentsOf: URL(fileURLWithPath: snapshots + "/" + name))
            #expect(try jpegSize(file) == (1280, 720))
            let served = try httpGet(base + "/snapshots/" + name)
            #expect(served.status == 200 && served.body == file)
        }
        for hostile in ["/snapshots/..%2F..%2Fetc%2Fpasswd", "/snapshots/../../etc/passwd", "/snapshots/%2Fetc%2Fpasswd",
                        "/snapshots/20991231T000000.000Z-f000000-1-code.jpg"] {
            #expect(try httpGet(base + hostile, ["--path-as-is"]).status == 404, "\(hostile)")
        }

        // Recordings: the presence clip's line (on standard output and the event stream, compared
        // above), listed by /api/recordings and served as a download by exact name only.
        let recorded = stdoutLines.compactMap { line -> [String: Any]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).flatMap { $0["kind"] as? String == "recording" ? $0 : nil }
        }
        let clipName = try #require(recorded.first?["file"] as? String, "a recording line: \(stdoutLines)")
        let listing = try httpGet(base + "/api/recordings")
        #expect(listing.status == 200)
        let listed = try #require(try JSONSerialization.jsonObject(with: listing.body) as? [String: Any])["recordings"] as? [[String: Any]]
        #expect(listed?.map { $0["file"] as? String } == [clipName])
        #expect(listed?.first?["url"] as? String == "/recordings/" + clipName)
        let download = try httpGet(base + "/recordings/" + clipName)
        let file = try Data(contentsOf: URL(fileURLWithPath: recordings + "/" + clipName))
        #expect(download.status == 200 && download.body == file)
        for hostile in ["/recordings/..%2F..%2Fetc%2Fpasswd", "/recordings/../../etc/passwd", "/recordings/20991231T000000.000Z-presence.mkv"] {
            #expect(try httpGet(base + hostile, ["--path-as-is"]).status == 404, "\(hostile)")
        }
        lookout.signal(SIGINT)
        #expect(lookout.waitForExit(timeout: 30) == 0)
    }

    @Test func aNonLoopbackAddressNeedsATokenAndTheTokenIsChecked() throws {
        let refused = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "0.0.0.0:0"])
        #expect(refused.waitForExit() == 64)
        #expect(refused.errors.lines.contains { $0.contains("--http-token-file") })

        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-token-\(UUID().uuidString)").path
        try "s3cret token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("sample.mjpeg"),
                                                            "--http", "0.0.0.0:0", "--http-token-file", tokenFile])
        var port: String?
        _ = process.errors.wait(timeout: 30) { lines in
            guard let line = lines.first(where: { $0.contains("web view at http://0.0.0.0:") }),
                  let range = line.range(of: "0.0.0.0:") else { return false }
            port = String(line[range.upperBound...].prefix { $0.isNumber })
            return true
        }
        // The line is "web view at http://0.0.0.0:PORT/"; ask on loopback.
        let base = "http://127.0.0.1:" + (try #require(port))
        #expect(try httpGet(base + "/api/status").status == 401)
        #expect(try httpGet(base + "/api/status", ["-H", "Authorization: Bearer wrong"]).status == 401)
        #expect(try httpGet(base + "/api/status", ["-H", "Authorization: Bearer s3cret token"]).status == 200)
        #expect(try httpGet(base + "/api/status", ["-u", "anyone:s3cret token"]).status == 200)
        #expect(try httpGet(base + "/healthz").status == 200, "health checks need no token")
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: 30) == 0)
    }

    /// Connects, asks for `path` and never reads: a receive buffer of 4 KB fills at once.
    static func connectWithoutReading(port: Int, path: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        try #require(send(fd, request, request.count, 0) == request.count)
        return fd
    }

    static func residentKilobytes(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    }

    @Test func aViewerThatNeverReadsIsDisconnectedAndNeitherStallsCaptureNorGrowsMemory() throws {
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-clip-\(UUID().uuidString).mjpeg")
        let sample = try Fixtures.bytes("sample.mjpeg")
        try Data(Array([[UInt8]](repeating: sample, count: 12).joined())).write(to: clip) // 24 s at 30 fps
        defer { try? FileManager.default.removeItem(at: clip) }
        let (lookout, base) = try startLookoutWithHTTP(["--input", clip.path, "--realtime", "--types", "qr", "--preview-fps", "15"])
        let port = try #require(Int(base.split(separator: ":").last ?? ""))
        func framesRead() -> Int { (try? httpGet(base + "/api/status").json?["frames_read"] as? Int) ?? 0 }
        #expect(eventually { framesRead() > 0 }, "no frame read")
        let stalled = try Self.connectWithoutReading(port: port, path: "/api/stream.mjpeg?boxes=1")
        defer { close(stalled) }
        let before = framesRead()
        let baseline = Self.residentKilobytes(lookout.pid)
        var peak = baseline
        var disconnected = 0, readWhileStalled = 0
        // Held until the server gives up on the viewer (it takes no picture for 10 s).
        #expect(eventually { () -> Bool in
            peak = max(peak, Self.residentKilobytes(lookout.pid))
            let status = try? httpGet(base + "/api/status").json
            disconnected = (status?["http"] as? [String: Any])?["slow_clients_disconnected"] as? Int ?? 0
            if disconnected == 0 { readWhileStalled = (status?["frames_read"] as? Int ?? before) - before }
            return disconnected > 0
        }, "the stalled viewer was never disconnected")
        #expect(disconnected == 1, "the one stalled viewer was disconnected")
        // Capture went on while the viewer stalled (it would stand still if the viewer held it):
        // the 10 s before the disconnection are 300 frames of the clip.
        #expect(readWhileStalled >= 30, "capture stalled with the viewer: \(readWhileStalled) frames read meanwhile")
        #expect(peak - baseline < 40_000, "resident memory grew by \(peak - baseline) KB")
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // The server closed its side: after what was buffered, the socket reads end of file.
        #expect(eventually { () -> Bool in
            let n = recv(stalled, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            return n == 0 || (n < 0 && errno != EAGAIN)
        }, "the server closed the stalled connection")
        lookout.signal(SIGTERM)
        #expect(lookout.waitForExit(timeout: 30) == 0)
    }

    /// A loopback port something listens on (the system's pick): the caller closes `descriptor`.
    static func portInUse() throws -> (descriptor: Int32, port: Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 1) == 0 else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aPortInUseIsOneSentenceAndExitStatus1() throws {
        let (listener, port) = try Self.portInUse()
        defer { close(listener) }
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(result.stderr == "lookout: cannot listen on 127.0.0.1:\(port): Address already in use\n", "\(result.stderr)")
    }

    @Test func theWebPageDrawsTheBoxesWhereTheDetectionsAre() throws {
        // The clip, paced, fifteen times over (30 s), so the page sees it live however long the
        // browser takes to start; the run is stopped once the page has been checked.
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-clip-\(UUID().uuidString).mjpeg")
        let sample = try Fixtures.bytes("sample.mjpeg")
        try Data(Array([[UInt8]](repeating: sample, count: 15).joined())).write(to: clip)
        defer { try? FileManager.default.removeItem(at: clip) }
        let detections = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-detections-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: detections) }
        let (lookout, base) = try startLookoutWithHTTP(["--input", clip.path, "--realtime"], outputFile: detections.path)
        let check = try browserCheck("check-web-view.py", [base + "/", detections.path, "qr", "ean13", "face", "--timeout", "60"])
        #expect(check.status == 0, "\(check.report)")
        lookout.signal(SIGTERM)
        #expect(lookout.waitForExit(timeout: 30) == 0)
    }
}

/// `/healthz` from a pipeline on a scripted camera that is unplugged and comes back (in process:
/// the real kernel drivers' loss is covered by the VM tests).
@Suite("Health while the camera comes and goes")
struct HealthTests {
    @Test func healthzAnswers503WhileTheCameraIsLostAnd200WhenItIsBack() async throws {
        // Frames every 30 ms for up to five minutes; the test unplugs the camera once it is seen
        // streaming and plugs it back once it is seen lost, then stops the run.
        var script: [ScriptedV4L2Driver.Step] = []
        for n in 0..<10_000 { script += [.pause(milliseconds: 30), .frame(sequence: UInt32(n), timestampNs: Int64(n + 1) * 33_000_000)] }
        let driver = ScriptedV4L2Driver(script: script)
        let device = try CaptureDevice(path: "/dev/scripted0", driver: driver)
        let session = CaptureSession()
        try session.addInput(try CaptureDeviceInput(device: device, watchdogTimeout: 2))
        let metadata = MetadataOutput()
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr])
        let pipeline = DetectionPipeline(session: session, metadataOutput: metadata,
                                         configuration: DetectionPipeline.Configuration(source: device.uniqueID))
        let server = try WebServer(pipeline: pipeline, configuration: WebServer.Configuration(address: WebServerAddress(port: 0)))
        // The waits below block: the test holds a thread of Swift's pool all along, and the
        // server must answer anyway (its tasks run on an executor of its own).
        try await server.start()
        let base = "http://127.0.0.1:\(try #require(server.port))"
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = pipeline.run()
            finished.signal()
        }
        func waitForHealth(_ status: Int, input: String, within seconds: Double) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let answer = try httpGet(base + "/healthz")
                if answer.status == status, answer.json?["input"] as? String == input { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        #expect(try waitForHealth(200, input: "streaming", within: 60))
        driver.unplug()
        #expect(try waitForHealth(503, input: "lost", within: 60))
        let metrics = try httpGet(base + "/metrics").text
        #expect(metrics.contains(#"lookout_camera_up{camera="scripted0"} 0.0"#), "the gauge follows: \(metrics.split(separator: "\n").filter { $0.contains("camera_up") })")
        driver.replug()
        #expect(try waitForHealth(200, input: "streaming", within: 60))
        pipeline.stop()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(try httpGet(base + "/healthz").status == 503, "a stopped run is not healthy")
        await server.stop()
    }
}
