import Foundation
import Testing
@testable import Lookout

/// Several inputs in one process, and sources read through a real ffmpeg child: an MP4 file made
/// from the sample clip, and a live MPEG-TS stream served by ffmpeg's own HTTP listener.
@Suite("Several inputs and ffmpeg sources", .serialized)
struct SeveralInputsTests {
    static func lines(_ result: ProcessResult) throws -> [[String: Any]] { try jsonObjects(result) }

    /// `sample.mjpeg` as H.264 in MP4, made by ffmpeg (15 fps, as the clip).
    static func sampleMP4() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-sample-\(UUID().uuidString).mp4")
        let result = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-f", "mjpeg", "-r", "15", "-i", Fixtures.path("sample.mjpeg"),
                                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", url.path])
        try #require(result == 0, "ffmpeg could not make the MP4")
        return url
    }

    static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether a socket listens on TCP `port` of 127.0.0.1 (state 0A in /proc/net/tcp), found
    /// without connecting to it.
    static func listens(on port: Int) -> Bool {
        let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }

    @Test func twoFilesAtOnceGiveLinesForBothEachNamed() throws {
        let result = try lookout(["run", "-i", "shelf=" + Fixtures.path("sample.mjpeg"), "-i", Fixtures.path("events-codes.mjpeg"),
                                  "--events", "changes", "--stats", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.lines(result)
        let cameras = Set(lines.compactMap { $0["camera"] as? String })
        #expect(cameras == ["shelf", "events-codes"], "the name given, and one made from the path")
        let shelfCodes = lines.filter { $0["camera"] as? String == "shelf" && $0["kind"] as? String == "code" }
        #expect(Set(shelfCodes.compactMap { $0["value"] as? String }) == ["4006381333931", "Lookout sample QR: été ✓"])
        #expect(shelfCodes.allSatisfy { ($0["source"] as? String)?.hasSuffix("sample.mjpeg") == true })
        #expect(lines.contains { $0["camera"] as? String == "events-codes" && $0["kind"] as? String == "code" })
        // A stats line per input, each counting its own frames only.
        let stats = Dictionary(uniqueKeysWithValues: lines.filter { $0["kind"] as? String == "stats" }
            .map { ($0["camera"] as? String ?? "", $0["frames_read"] as? Int ?? -1) })
        #expect(stats == ["shelf": 60, "events-codes": 80])
    }

    @Test func oneWebServerShowsEveryCameraAndKeepsTheirFilesApart() throws {
        let snapshots = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-snapshots-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: snapshots) }
        let (run, base) = try startLookoutWithHTTP(["-i", "a=" + Fixtures.path("sample.mjpeg"), "-i", "b=" + Fixtures.path("events-codes.mjpeg"),
                                                    "--events", "changes", "--stats", "--snapshots", snapshots])
        defer { run.signal(SIGKILL) }
        #expect(run.output.wait(timeout: 60) { $0.filter { $0.contains(#""kind":"stats""#) }.count == 2 }, "\(run.errors.lines)")
        let first = try httpGet(base + "/api/status")
        #expect(first.json?["camera"] as? String == "a")
        #expect((first.json?["cameras"] as? [[String: Any]])?.compactMap { $0["camera"] as? String } == ["a", "b"])
        let second = try httpGet(base + "/api/status?camera=b")
        #expect(second.json?["camera"] as? String == "b" && second.json?["frames_read"] as? Int == 80)
        #expect(try httpGet(base + "/api/status?camera=c").status == 404)
        let metrics = try httpGet(base + "/metrics").text
        #expect(metrics.contains(#"lookout_frames_read_total{camera="a"} 60"#) && metrics.contains(#"lookout_frames_read_total{camera="b"} 80"#),
                "\(metrics.split(separator: "\n").filter { $0.contains("frames_read") })")
        let health = try httpGet(base + "/healthz")
        #expect(health.status == 200 && (health.json?["cameras"] as? [String: String]) == ["a": "ended", "b": "ended"])
        #expect(try httpGet(base + "/api/latest.jpg?camera=c").status == 404)
        // Each camera's snapshots in its own folder, served for that camera only.
        // (Names are times and frame numbers: both cameras may well make the same name.)
        let ofA = Set(try FileManager.default.contentsOfDirectory(atPath: snapshots + "/a").filter(SnapshotFileName.isSnapshot))
        let ofB = try FileManager.default.contentsOfDirectory(atPath: snapshots + "/b").filter(SnapshotFileName.isSnapshot)
        // a: code, code, face_enter, presence on; b (at the MJPEG default of 30 fps): one code.
        #expect(ofA.count == 4 && ofB.count == 1, "\(ofA) \(ofB)")
        for name in ofB {
            let fromB = try httpGet(base + "/snapshots/\(name)?camera=b")
            let fileB = try Data(contentsOf: URL(fileURLWithPath: snapshots + "/b/" + name))
            #expect(fromB.status == 200 && fromB.body == fileB)
            let fromA = try httpGet(base + "/snapshots/\(name)?camera=a")
            if ofA.contains(name) {
                let fileA = try Data(contentsOf: URL(fileURLWithPath: snapshots + "/a/" + name))
                #expect(fromA.body == fileA && fromA.body != fromB.body)
            } else {
                #expect(fromA.status == 404)
            }
        }
        run.signal(SIGINT)
        #expect(run.waitForExit() == 0)
    }

    @Test func inputNamesMustBeDistinct() throws {
        let clip = Fixtures.path("sample.mjpeg")
        let result = try lookout(["run", "-i", clip, "-i", clip])
        #expect(result.status == 64)
        #expect(result.stderr.contains("two inputs are named 'sample'"), "\(result.stderr)")
        #expect(try lookout(["run", "-i", "a=" + clip, "-i", "b=" + clip, "-q"]).status == 0)
    }

    @Test func anMP4MadeByFFmpegGivesTheSamplesCodesAndFaces() throws {
        let mp4 = try Self.sampleMP4()
        defer { try? FileManager.default.removeItem(at: mp4) }
        let result = try lookout(["run", "--input", mp4.path, "--events", "changes", "--stats", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.lines(result)
        #expect(Set(lines.filter { $0["kind"] as? String == "code" }.compactMap { $0["value"] as? String })
                == ["4006381333931", "Lookout sample QR: été ✓"])
        #expect(lines.contains { $0["kind"] as? String == "face_enter" })
        let stats = try #require(lines.last)
        #expect(stats["frames_read"] as? Int == 60, "every frame of the clip")
        // Luma only: nothing asked for colour pictures.
        #expect((stats["format"] as? [String: Any])?["pixel_format"] as? String == "GREY")
        #expect(lines.allSatisfy { $0["camera"] as? String == mp4.deletingPathExtension().lastPathComponent })
    }

    @Test func ffmpegMissingAFileItCannotReadAndAnUnknownSchemeEachGiveOneSentence() throws {
        let mp4 = try Self.sampleMP4()
        defer { try? FileManager.default.removeItem(at: mp4) }
        let missing = try lookout(["run", "--input", mp4.path], environment: ["LOOKOUT_FFMPEG": "/nonexistent/ffmpeg"])
        #expect(missing.status == 72)
        #expect(missing.stderr.contains("needs ffmpeg") && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")

        let scheme = try lookout(["run", "--input", "gopherx://camera.local/stream"])
        #expect(scheme.status == 64)
        #expect(scheme.stderr.contains("ffmpeg does not read gopherx:// addresses"), "\(scheme.stderr)")

        let text = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-not-video-\(UUID().uuidString).mp4")
        try Data("not a video\n".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        let unreadable = try lookout(["run", "--input", text.path])
        #expect(unreadable.status == 66)
        #expect(unreadable.stderr == "lookout: \(text.path): not a video Lookout or ffmpeg can read\n", "\(unreadable.stderr)")
    }

    @Test func passwordsInAURLNeverReachTheLines() throws {
        #expect(FFmpegInput.redacted("rtsp://admin:s3cret@10.0.0.5:554/live") == "rtsp://admin:***@10.0.0.5:554/live")
        #expect(FFmpegInput.redacted("http://10.0.0.5/a@b") == "http://10.0.0.5/a@b")
        #expect(CameraName.derived(from: "rtsp://admin:s3cret@10.0.0.5:554/live") == "10_0_0_5-live")
        #expect(CameraName.derived(from: "/dev/v4l/by-id/usb-Cam_0001-video-index0") == "usb-Cam_0001-video-index0")
        #expect(CameraName.split("hall=/dev/video0") == ("hall", "/dev/video0"))
        #expect(CameraName.split("rtsp://h/s?a=b") == (nil, "rtsp://h/s?a=b"))
        // End to end: ffmpeg quotes the URL when it fails; Lookout's lines and messages do not.
        let run = try BackgroundProcess(lookoutBinary, ["run", "-i", "http://admin:s3cr3t@127.0.0.1:1/live"])
        defer { run.signal(SIGKILL) }
        #expect(run.output.wait(timeout: 60) { $0.contains { $0.contains("camera_lost") } }, "\(run.errors.lines)")
        run.signal(SIGTERM)
        #expect(run.waitForExit() == 0)
        let everything = run.output.lines + run.errors.lines
        #expect(everything.contains { $0.contains("http://admin:***@127.0.0.1:1/live") })
        #expect(!everything.contains { $0.contains("s3cr3t") }, "\(everything)")
    }

    /// The sample, 20 s of it (five times over), for a server that plays a file once per client.
    static func longSampleMP4() throws -> URL {
        let mp4 = try sampleMP4()
        defer { try? FileManager.default.removeItem(at: mp4) }
        let long = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-long-\(UUID().uuidString).mp4")
        try #require(try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-stream_loop", "4", "-i", mp4.path, "-c", "copy", long.path]) == 0)
        return long
    }

    /// Lookout on `url` sees codes; the server is killed (`camera_lost`), started again
    /// (`camera_found`, then codes again); every line names the camera. Detection lines (not
    /// events): a code still in view across a short loss is, rightly, no new code event.
    static func expectLostThenFound(url: String, serve: () throws -> BackgroundProcess) throws {
        var server = try serve()
        defer { server.signal(SIGKILL) }
        let run = try BackgroundProcess(lookoutBinary, ["run", "--input", "door=" + url, "--types", "qr", "--watchdog", "2"])
        defer { run.signal(SIGKILL) }
        func kinds(_ lines: [String]) -> [String] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["kind"] as? String }
        }
        #expect(run.output.wait(timeout: 40) { kinds($0).contains("qr") }, "no code from the stream: \(run.errors.lines)")
        server.signal(SIGKILL)
        server.waitForExit()
        #expect(run.output.wait(timeout: 60) { kinds($0).contains("camera_lost") }, "\(run.errors.lines)")
        server = try serve()
        #expect(run.output.wait(timeout: 40) { lines in
            let all = kinds(lines)
            guard let found = all.firstIndex(of: "camera_found") else { return false }
            return all[found...].contains("qr")
        }, "\(Set(kinds(run.output.lines))) \(run.errors.lines)")
        run.signal(SIGINT)
        #expect(run.waitForExit() == 0)
        let lines = run.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.allSatisfy { $0["camera"] as? String == "door" })
        let lost = try #require(lines.first { $0["kind"] as? String == "camera_lost" })
        #expect(lost["source"] as? String == url)
        #expect(run.errors.lines.contains { $0.contains("camera lost") }, "a person is told too")
    }

    @Test func anHTTPStreamCutAndRestoredGivesCameraLostThenFoundAndDetectionsResume() throws {
        let mp4 = try Self.sampleMP4()
        defer { try? FileManager.default.removeItem(at: mp4) }
        let port = try TestPort.lease()
        // ffmpeg's own HTTP listener: the sample looped as live MPEG-TS, paced (-re).
        try Self.expectLostThenFound(url: "http://127.0.0.1:\(port)/live.ts") {
            let server = try BackgroundProcess("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "quiet", "-re", "-stream_loop", "-1", "-i", mp4.path, "-c", "copy",
                                                                   "-f", "mpegts", "-listen", "1", "http://127.0.0.1:\(port)/live.ts"])
            // The listener takes one client: its socket is looked for, not connected to.
            #expect(eventually { Self.listens(on: port) }, "ffmpeg does not listen on \(port)")
            return server
        }
    }

    @Test func anRTSPCameraCutAndRestoredGivesCameraLostThenFoundAndDetectionsResume() throws {
        let mp4 = try Self.longSampleMP4()
        defer { try? FileManager.default.removeItem(at: mp4) }
        let port = try TestPort.lease()
        // GStreamer's RTSP server (Debian's gir1.2-gst-rtsp-server-1.0), H.264 over RTP.
        try Self.expectLostThenFound(url: "rtsp://127.0.0.1:\(port)/live") {
            let server = try BackgroundProcess(Fixtures.packageRoot + "/Tests/Support/rtsp-server.py", [String(port), mp4.path])
            #expect(server.output.wait(timeout: 60) { $0.contains("ready") }, "the RTSP server did not start: \(server.errors.lines)")
            return server
        }
    }
}
