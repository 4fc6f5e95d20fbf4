import Foundation
import Testing
import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Videos read through ffmpeg that are not the usual YUV: pictures without a Y plane (GIF, RGB
/// FFV1, palette PNG), no video at all, pictures over --max-pixels, and `file://` URLs. Each
/// fixture is made by ffmpeg at test time in a temporary folder; the built binary reads it.
@Suite("Odd sources read through ffmpeg", .serialized)
struct OddSourceTests {
    /// The QR fixture's value.
    static let qrValue = "été"

    /// A folder of its own, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lookout odd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs ffmpeg (never reading standard input) and requires that it made `output`.
    static func ffmpeg(_ arguments: [String], making output: URL) throws {
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments + [output.path]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg could not make \(output.lastPathComponent)")
    }

    /// The QR fixture as 5 frames of video, in `codec` options, scaled to 320x320.
    static func qrVideo(named name: String, _ codec: [String], in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try ffmpeg(["-loop", "1", "-i", Fixtures.path("qr-utf8-ete.png"), "-frames:v", "5", "-r", "5",
                    "-vf", "scale=320:320:flags=neighbor"] + codec, making: url)
        return url
    }

    /// A solid colour H.264 clip of `size` (WxH), 3 frames.
    static func solidClip(size: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("solid-\(size).mp4")
        try ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=\(size):r=5", "-frames:v", "3", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p"], making: url)
        return url
    }

    /// Code values and the stats line of a run.
    static func codes(_ result: ProcessResult) throws -> (values: [String], stats: [String: Any]) {
        let lines = try jsonObjects(result)
        let stats = try #require(lines.last { $0["kind"] as? String == "stats" }, "a stats line: \(result.lines)")
        return (lines.filter { $0["kind"] as? String == "qr" }.compactMap { $0["value"] as? String }, stats)
    }

    /// GIF (palette, decoded as BGRA), FFV1 in BGR0 and PNG frames in a palette have no Y plane:
    /// luma only (nothing asks for colour pictures) must still give the code on every frame.
    @Test(arguments: [("qr.gif", ["-c:v", "gif"]), ("qr-bgr0.mkv", ["-c:v", "ffv1", "-pix_fmt", "bgr0"]),
                      ("qr-pal8.mkv", ["-c:v", "png", "-pix_fmt", "pal8"])])
    func aVideoWithoutAYPlaneGivesItsCodes(name: String, codec: [String]) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = try Self.qrVideo(named: name, codec, in: folder)
        let result = try lookout(["run", "--input", video.path, "--types", "qr", "--stats", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let (values, stats) = try Self.codes(result)
        #expect(values == Array(repeating: Self.qrValue, count: 5), "the code on each of the 5 frames")
        #expect(stats["frames_read"] as? Int == 5)
        #expect(stats["input"] as? String == "ended")
        #expect((stats["format"] as? [String: Any])?["pixel_format"] as? String == "GREY")
        #expect((stats["format"] as? [String: Any])?["width"] as? Int == 320)
    }

    @Test func aFileWithoutVideoIsNoVideoStreamWithFFmpegsLineOnlyWhenVerbose() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let audio = folder.appendingPathComponent("tone.m4a")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=d=0.5"], making: audio)

        let quiet = try lookout(["run", "--input", audio.path])
        #expect(quiet.status == 66)
        #expect(quiet.stderr == "lookout: \(audio.path): no video stream\n")
        #expect(quiet.lines.isEmpty)

        let verbose = try lookout(["run", "--input", audio.path, "--verbose"])
        #expect(verbose.status == 66)
        #expect(verbose.stderr == "lookout: \(audio.path): no video stream\n"
                + "lookout: the library said: Stream map '0:v:0' matches no streams.\n")
    }

    /// ffmpeg is run through a script that writes its pid and its address-space limit, then
    /// becomes ffmpeg: the refusal must leave no ffmpeg behind once Lookout has exited.
    @Test(arguments: [("1280x720", "ffmpeg's decoder refuses it"), ("1000x722", "ffmpeg's decoder refuses it, naming the padded width too"),
                      ("800x480", "Lookout refuses the header ffmpeg writes")])
    func aVideoOverTheBudgetIsRefusedAndItsFFmpegStopped(size: String, refusedBy: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.solidClip(size: size, in: folder)
        let record = folder.appendingPathComponent("ffmpeg-record")
        let wrapper = folder.appendingPathComponent("ffmpeg-wrapper")
        try Data("#!/bin/sh\necho \"$$ $(ulimit -v)\" > '\(record.path)'\nexec /usr/bin/ffmpeg \"$@\"\n".utf8).write(to: wrapper)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)

        let result = try lookout(["run", "--input", clip.path, "--max-pixels", "640x480"], environment: ["LOOKOUT_FFMPEG": wrapper.path])
        #expect(result.status == 66, "\(refusedBy)")
        #expect(result.stderr == "lookout: \(clip.path): over the pixel budget: \(size) is more than the 307200 pixels --max-pixels allows\n",
                "\(refusedBy)")
        #expect(result.lines.isEmpty)

        let fields = try String(contentsOf: record, encoding: .utf8).split(separator: " ").map { String($0.filter { !$0.isNewline }) }
        try #require(fields.count == 2, "\(fields)")
        let pid = try #require(pid_t(fields[0]))
        // Lookout killed and reaped its child before exiting: the pid is gone.
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "ffmpeg (pid \(pid)) still there after lookout exited")
        // 512 MiB plus 16 bytes per pixel ffmpeg may decode (twice the budget), in KiB.
        let limitKiB: Int = (512 << 20 + 16 * 2 * 307_200) / 1024
        #expect(fields[1] == String(limitKiB), "the address-space limit ffmpeg ran with")
    }

    @Test func ffmpegsOwnRefusalIsShownWithVerbose() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.solidClip(size: "1280x720", in: folder)
        let result = try lookout(["run", "--input", clip.path, "--max-pixels", "640x480", "-v"])
        #expect(result.status == 66)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(result.stderr)")
        #expect(lines[0] == "lookout: \(clip.path): over the pixel budget: 1280x720 is more than the 307200 pixels --max-pixels allows")
        #expect(lines[1].hasPrefix("lookout: the library said: ") && lines[1].contains("Picture size 1280x720 exceeds specified max pixel count 614400"),
                "\(lines[1])")
    }

    @Test func aFileURLNamesAPathOfThisMachine() throws {
        #expect(try FFmpegInput.fileURLPath("file:///tmp/a%20b%2Fc.mp4") == "/tmp/a b/c.mp4")
        #expect(try FFmpegInput.fileURLPath("file://localhost/srv/clip.mkv") == "/srv/clip.mkv")
        #expect(try FFmpegInput.fileURLPath("FILE:///x%zz%4") == "/x%zz%4", "a % without two hex digits stays")
        #expect(try FFmpegInput.fileURLPath("/tmp/clip.mp4") == nil)
        #expect(try FFmpegInput.fileURLPath("rtsp://cam.local/file:///x") == nil)
        #expect(throws: MediaError.notFound(path: "file://nas/clip.mp4")) { try FFmpegInput.fileURLPath("file://nas/clip.mp4") }
    }

    /// A `file://` URL is the file: read once to its end (exit 0), the same codes as its path,
    /// whether Lookout reads it (MJPEG) or ffmpeg does (MP4). Percent escapes are decoded.
    @Test func aFileURLIsReadAsTheFileItNames() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mp4 = folder.appendingPathComponent("sample clip.mp4")
        try Self.ffmpeg(["-f", "mjpeg", "-r", "15", "-i", Fixtures.path("sample.mjpeg"), "-c:v", "libx264", "-pix_fmt", "yuv420p"], making: mp4)
        let mjpeg = folder.appendingPathComponent("sample clip.mjpeg")
        try FileManager.default.copyItem(atPath: Fixtures.path("sample.mjpeg"), toPath: mjpeg.path)

        for file in [mp4, mjpeg] {
            let url = "file://" + file.path.replacingOccurrences(of: " ", with: "%20")
            let byPath = try lookout(["run", "--input", file.path, "--types", "qr,ean13", "--stats", "-q"])
            let byURL = try lookout(["run", "--input", url, "--types", "qr,ean13", "--stats", "-q"])
            #expect(byPath.status == 0, "\(byPath.stderr)")
            #expect(byURL.status == 0, "\(url): \(byURL.stderr)")
            #expect(byURL.stderr.isEmpty, "\(byURL.stderr)")
            let pathLines = try jsonObjects(byPath).filter { $0["kind"] as? String != "stats" }
            let urlLines = try jsonObjects(byURL).filter { $0["kind"] as? String != "stats" }
            let detections: ([[String: Any]]) -> [String] = { lines in
                lines.map { "\($0["frame"] as? Int ?? -1) \($0["kind"] as? String ?? "") \($0["value"] as? String ?? "")" }
            }
            try #require(!pathLines.isEmpty, "the sample has codes")
            #expect(detections(urlLines) == detections(pathLines))
            #expect(Set(urlLines.compactMap { $0["value"] as? String }) == ["4006381333931", "Lookout sample QR: été ✓"])
            for run in [byPath, byURL] {
                let stats = try #require(try jsonObjects(run).last)
                #expect(stats["input"] as? String == "ended")
                #expect(stats["frames_read"] as? Int == 60, "every frame once: \(stats)")
            }
        }
    }
}
