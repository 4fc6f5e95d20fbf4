import Foundation
@testable import Lookout
import Testing

/// Recordings (`--record`, `MovieFileOutput`), checked with Debian's ffprobe and ffmpeg reading
/// every file.
@Suite("Recordings", .serialized)
struct RecordingTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lookout-recordings-\(UUID().uuidString)").path
    }

    /// `lookout run` with `arguments` (through `shell` in a mount namespace of its own when given);
    /// its JSON lines, stats and errors.
    static func run(_ arguments: [String], through shell: String? = nil, timeout: Double = 90)
        throws -> (lines: [[String: Any]], stats: [String: Any], errors: [String], status: Int32) {
        let arguments = ["run", "--events", "changes", "--stats"] + arguments
        let process = try shell.map { try BackgroundProcess("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", $0, lookoutBinary] + arguments) }
            ?? BackgroundProcess(lookoutBinary, arguments)
        let status = process.waitForExit(timeout: timeout)
        let lines = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let stats = lines.last { $0["kind"] as? String == "stats" } ?? [:]
        return (lines.filter { $0["kind"] as? String != "stats" }, stats, process.errors.lines, status)
    }

    /// What ffprobe says of a file: codec, packets counted, duration (nil when the file has none
    /// in its header, as a killed recording), and the last packet's time.
    struct Probe {
        var codec: String
        var packets: Int
        var duration: Double?
        var lastPacketTime: Double
    }

    static func probe(_ path: String) throws -> Probe {
        let result = try command("/usr/bin/ffprobe", ["-v", "error", "-count_packets", "-show_entries",
                                                     "stream=codec_name,nb_read_packets:format=duration", "-of", "json", path])
        try #require(result.status == 0, "ffprobe rejects \(path): \(result.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
        let hashes = try packetHashes(path)
        return Probe(codec: stream["codec_name"] as? String ?? "", packets: Int(stream["nb_read_packets"] as? String ?? "") ?? 0,
                     duration: duration, lastPacketTime: hashes.last?.time ?? -1)
    }

    /// Each packet's time (seconds) and the MD5 of its bytes, by ffmpeg's framemd5 muxer over a
    /// stream copy: the packets exactly as stored.
    static func packetHashes(_ path: String) throws -> [(time: Double, md5: String)] {
        let result = try command("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
        try #require(result.status == 0, "ffmpeg cannot read \(path): \(result.errors)")
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, let pts = Double(fields[2]) else { return nil }
            return (pts / 1000, fields[5]) // Matroska's time base: milliseconds
        }
    }

    static func command(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: Data, errors: String) {
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var output = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { output = out.fileHandleForReading.readDataToEndOfFile() }
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        return (process.terminationStatus, output, String(decoding: errors, as: UTF8.self))
    }

    /// The MD5 of each piece, by md5sum (coreutils).
    static func md5(_ pieces: [Data]) throws -> [String] {
        let folder = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = try pieces.enumerated().map { index, piece in
            let path = folder + "/" + String(format: "%05d", index)
            try piece.write(to: URL(fileURLWithPath: path))
            return path
        }
        let result = try command("/usr/bin/md5sum", paths)
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").map { String($0.prefix(32)) }
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    static func clips(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mkv") }.sorted()
    }

    /// The JPEG frames of an MJPEG file, as Lookout's reader splits them.
    static func jpegFrames(_ name: String) throws -> [Data] {
        let bytes = try Fixtures.bytes(name)
        var frames: [Data] = []
        var start: Int?
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF && bytes[index + 1] == 0xD8 && start == nil { start = index }
            if bytes[index] == 0xFF && bytes[index + 1] == 0xD9, let first = start {
                frames.append(Data(bytes[first...(index + 1)]))
                start = nil
                index += 2
                continue
            }
            index += 1
        }
        return frames
    }

    // MARK: The clip of a presence

    @Test func aFaceFromTwoToSixSecondsGivesOneClipFromZeroToAboutEleven() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // events-presence.mjpeg: a face from 2 s to 6 s of 12 s at 10 fps, paced like a camera.
        let run = try Self.run(["--input", Fixtures.path("events-presence.mjpeg"), "--fps", "10", "--realtime", "--record", directory])
        #expect(run.status == 0, "\(run.errors)")
        let recordings = run.lines.filter { $0["kind"] as? String == "recording" }
        try #require(recordings.count == 1, "one clip: \(run.lines)")
        let line = recordings[0]
        let presenceOff = try #require(run.lines.first { $0["kind"] as? String == "presence" && $0["state"] as? String == "off" })
        let lastSeen = try #require(presenceOff["last_seen_pts"] as? Double)
        let expectedEnd = lastSeen + 5 // the post-roll after the last face
        let first = try #require(line["first_pts"] as? Double), last = try #require(line["last_pts"] as? Double)
        #expect(first == 0, "the 5 s pre-roll reaches back to the first frame")
        #expect(abs(last - expectedEnd) <= 0.1 + 1e-9, "ends within a frame of \(expectedEnd): \(line)")
        let frames = try #require(line["frames"] as? Int)
        #expect(frames == Int((last - first) * 10 + 1.5), "every frame of the span: \(line)")
        let event = try #require(line["event"] as? [String: Any])
        #expect(event["kind"] as? String == "presence")

        let files = try Self.clips(in: directory)
        #expect(files == [line["file"] as? String ?? ""])
        let probe = try Self.probe(directory + "/" + files[0])
        #expect(probe.codec == "mjpeg")
        #expect(probe.packets == frames)
        #expect(abs((probe.duration ?? 0) - (line["duration"] as? Double ?? -1)) < 0.002)
        #expect(abs((probe.duration ?? 0) - (last - first + 0.1)) <= 0.1 + 1e-9, "duration within a frame")
        #expect(((try? FileManager.default.attributesOfItem(atPath: directory + "/" + files[0])[.size]) as? Int) == line["bytes"] as? Int)
        let recordingStats = try #require(run.stats["recordings"] as? [String: Any])
        #expect(recordingStats["finished"] as? Int == 1 && recordingStats["frames_lost"] as? Int == 0, "\(recordingStats)")
    }

    // MARK: Passthrough

    @Test func mjpegFramesAreStoredByteForByteAtTheirOwnTimes() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try Self.run(["--input", Fixtures.path("sample.mjpeg"), "--fps", "15", "--record", directory, "--record-on", "always"])
        #expect(run.status == 0, "\(run.errors)")
        let line = try #require(run.lines.first { $0["kind"] as? String == "recording" })
        #expect(line["reason"] as? String == "session_stopped")
        let input = try Self.jpegFrames("sample.mjpeg")
        let stored = try Self.packetHashes(directory + "/" + (line["file"] as? String ?? ""))
        #expect(stored.count == input.count, "every frame recorded")
        let inputHashes = try Self.md5(input)
        #expect(stored.map(\.md5) == inputHashes, "packets are the input frames, byte for byte")
        for (index, packet) in stored.enumerated() {
            #expect(abs(packet.time - Double(index) / 15) < 0.001, "frame \(index) at its presentation time")
        }
    }

    @Test func aRawInputIsCompressedIntoAClipFFprobeAccepts() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try Self.run(["--input", Fixtures.path("qr-420.y4m"), "--record", directory, "--record-on", "codes"])
        #expect(run.status == 0, "\(run.errors)")
        let line = try #require(run.lines.first { $0["kind"] as? String == "recording" }, "\(run.lines)")
        let event = try #require(line["event"] as? [String: Any])
        #expect(event["kind"] as? String == "code" && event["type"] as? String == "qr" && event["value"] as? String == "été")
        let probe = try Self.probe(directory + "/" + (line["file"] as? String ?? ""))
        #expect(probe.codec == "mjpeg" && probe.packets == 2 && probe.packets == line["frames"] as? Int)
        let decoded = try Self.command("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", directory + "/" + (line["file"] as? String ?? ""), "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.errors.isEmpty, "every frame decodes: \(decoded.errors)")
    }

    // MARK: Faults

    @Test func aClipKilledMidwayIsReadableToTheLastFrameOnDisk() throws {
        let directory = Self.temporaryDirectory()
        let long = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-long-\(UUID().uuidString).mjpeg").path
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: long)
        }
        // 10 s of 720p MJPEG at 30 fps, paced like a camera, recorded continuously.
        let sample = try Fixtures.bytes("sample.mjpeg")
        try Data((0..<5).flatMap { _ in sample }).write(to: URL(fileURLWithPath: long))
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", long, "--realtime", "--events", "changes",
                                                            "--record", directory, "--record-on", "always", "--quiet"])
        // The clip reaches the disk while it is recorded: killed without warning once the file
        // holds 3 MB (about 65 frames, 2 s), everything the file then holds must be readable,
        // up to its last whole frame.
        var file: String?
        #expect(eventually {
            file = (try? Self.clips(in: directory))?.first
            return file.map { Self.size(of: directory + "/" + $0) >= 3_000_000 } ?? false
        }, "no clip reached 3 MB on disk")
        process.signal(SIGKILL)
        _ = process.waitForExit()
        let name = try #require(file, "no clip was started")
        let onDisk = Self.size(of: directory + "/" + name)
        let probe = try Self.probe(directory + "/" + name)
        #expect(probe.codec == "mjpeg")
        #expect(abs(Double(probe.packets - 1) / 30 - probe.lastPacketTime) < 0.01, "frames at their times: \(probe)")
        // The frames read back, byte for byte the input's, account for all the file holds but
        // at most one frame cut by the kill and the container's framing (a few bytes a frame).
        let input = try Self.jpegFrames("sample.mjpeg")
        try #require(input.count == 60)
        let readable = (0..<probe.packets).reduce(0) { $0 + input[$1 % input.count].count }
        let largest = input.map(\.count).max() ?? 0
        #expect(readable >= onDisk - largest - 64 * probe.packets - 65_536 && readable <= onDisk,
                "\(probe.packets) frames (\(readable) bytes) readable of \(onDisk) bytes on disk")
        let decoded = try Self.command("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", directory + "/" + name, "-f", "null", "-"])
        #expect(decoded.status == 0, "ffmpeg plays it: \(decoded.errors)")
    }

    @Test func aFullDiskFailsTheClipWithALineAndDetectionGoesOn() throws {
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = try Self.run(["--input", Fixtures.path("sample.mjpeg")])
        // A 1 MB tmpfs in a mount namespace of its own: room for about 20 of the sample's frames.
        let run = try Self.run(["--input", Fixtures.path("sample.mjpeg"), "--record", directory + "/clips", "--record-on", "always"],
                               through: #"mount -t tmpfs -o size=1m lookout-test "$LOOKOUT_DIR" && exec "$0" "$@""#
                                   .replacingOccurrences(of: "$LOOKOUT_DIR", with: directory))
        try #require(!run.errors.contains { $0.contains("mount:") || $0.contains("unshare:") }, "cannot mount a tmpfs here: \(run.errors)")
        #expect(run.status == 0)
        #expect(run.stats["detections"] as? [String: Int] == plain.stats["detections"] as? [String: Int], "detection goes on")
        let failed = try #require(run.lines.first { $0["kind"] as? String == "recording_failed" }, "\(run.lines)")
        #expect(failed["errno"] as? Int == Int(ENOSPC) && (failed["error"] as? String ?? "").contains("No space left on device"))
        #expect(failed["reason"] as? String == "failed")
        #expect(run.errors.filter { $0.contains("No space left on device") }.count == 1, "one warning: \(run.errors)")
        let recordings = try #require(run.stats["recordings"] as? [String: Any])
        #expect(recordings["failed"] as? Int == 1, "the one clip: \(recordings)")
    }

    @Test func aDirectoryThatIsGoneIsMadeAgainForTheNextClip() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // events-codes: the code at 0 s and again at 6 s: two clips. The directory goes between them.
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("events-codes.mjpeg"), "--fps", "10",
                                                            "--realtime", "--events", "changes", "--record", directory,
                                                            "--record-on", "codes", "--pre-roll", "0", "--post-roll", "1"])
        #expect(process.output.wait(timeout: 30) { $0.contains { $0.contains(#""kind":"recording""#) } })
        try FileManager.default.removeItem(atPath: directory)
        #expect(process.waitForExit(timeout: 30) == 0)
        let kinds = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["kind"] as? String }.filter { $0.hasPrefix("recording") }
        #expect(kinds == ["recording", "recording"], "\(process.output.lines) \(process.errors.lines)")
        #expect(try Self.clips(in: directory).count == 1, "the second clip in the directory made again")
    }

    @Test func retentionDeletesTheOldestClipsFirst() throws {
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Clips from an earlier run: an old one, and one too large to keep with the new ones.
        let old = "20000101T000000.000Z-presence.mkv", big = "20000102T000000.000Z-presence.mkv"
        try Data(count: 100).write(to: URL(fileURLWithPath: directory + "/" + old))
        try Data(count: 3_000_000).write(to: URL(fileURLWithPath: directory + "/" + big))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -10 * 86400)], ofItemAtPath: directory + "/" + old)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: directory + "/" + big)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: directory + "/notes.txt"))
        // Continuous 1 s segments of the sample (2.8 MB for 60 frames): about 1.4 MB each.
        let run = try Self.run(["--input", Fixtures.path("sample.mjpeg"), "--record", directory, "--record-on", "always",
                                "--segment", "1", "--record-keep", "2M", "--record-max-age", "7d"])
        #expect(run.status == 0, "\(run.errors)")
        let made = run.lines.filter { $0["kind"] as? String == "recording" }.compactMap { $0["file"] as? String }
        #expect(made.count == 2, "\(run.lines)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(!files.contains(old), "older than 7 days: deleted")
        #expect(!files.contains(big), "over 2M with the new clips: the oldest deleted")
        #expect(files.contains("notes.txt"), "other files are left alone")
        #expect(files.contains(try #require(made.last)), "the newest clip is kept")
        let total = try files.filter { $0.hasSuffix(".mkv") }.reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0)
        }
        #expect(total <= 2 << 20 || files.filter { $0.hasSuffix(".mkv") }.count == 1, "within --record-keep: \(files) \(total)")
    }

    @Test func thePreRollRingNeverPassesItsBound() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 1 MiB holds about 20 of the sample's 46 kB frames: far less than 5 s at 30 fps.
        let run = try Self.run(["--input", Fixtures.path("sample.mjpeg"), "--realtime", "--record", directory,
                                "--record-memory", "1M", "--pre-roll", "5s"])
        #expect(run.status == 0, "\(run.errors)")
        let recordings = try #require(run.stats["recordings"] as? [String: Any])
        let capacity = try #require(recordings["ring_capacity"] as? Int)
        #expect(capacity == 1 << 20)
        #expect((recordings["ring_bytes_peak"] as? Int ?? .max) <= capacity && (recordings["ring_bytes_resident"] as? Int ?? .max) <= capacity,
                "\(recordings)")
        #expect((recordings["ring_bytes_peak"] as? Int ?? 0) > capacity / 2, "the ring was used: \(recordings)")
    }

    // MARK: The library

    @Test func aFrameRingKeepsItsRetentionAndItsBound() {
        let ring = CompressedFrameRing(capacity: 1000, retention: MediaTime(seconds: 1))
        let frame = [UInt8](repeating: 7, count: 300)
        for index in 0..<20 {
            frame.withUnsafeBytes { bytes in
                _ = ring.append(bytes, sequence: UInt64(index), presentationTime: MediaTime(seconds: Double(index) * 0.1),
                                wallClockTime: .now(), width: 0, height: 0)
            }
            #expect(ring.bytes <= 1000 && ring.touched <= 1000)
        }
        #expect(ring.count == 3, "3 frames of 300 bytes fit in 1000")
        // A recording holding frame 18 keeps it against the retention, not against the bound.
        ring.firstUnwritten = 18
        let small = [UInt8](repeating: 1, count: 10)
        for index in 20..<40 {
            small.withUnsafeBytes { bytes in
                _ = ring.append(bytes, sequence: UInt64(index), presentationTime: MediaTime(seconds: Double(index) * 0.1),
                                wallClockTime: .now(), width: 0, height: 0)
            }
        }
        #expect(ring.oldest?.id == 18, "unwritten frames outlive the retention")
        #expect(ring.overrun == 0)
        let large = [UInt8](repeating: 2, count: 900)
        large.withUnsafeBytes { bytes in
            _ = ring.append(bytes, sequence: 40, presentationTime: MediaTime(seconds: 4), wallClockTime: .now(), width: 0, height: 0)
        }
        // Frames 18 to 39, all unwritten, make way for the 900 bytes: each is counted.
        #expect(ring.overrun == 22, "the bound wins over unwritten frames, and they are counted: \(ring.overrun)")
        #expect(ring.bytes <= 1000)
    }

    @Test func retentionKeepsTheClipBeingWritten() {
        let retention = RecordingRetention(maximumBytes: 100, maximumAge: 60)
        let clips = [RecordingRetention.Clip(name: "a", bytes: 80, modified: 0),
                     RecordingRetention.Clip(name: "b", bytes: 80, modified: 990),
                     RecordingRetention.Clip(name: "c", bytes: 80, modified: 1000)]
        #expect(retention.clipsToDelete(clips, now: 1000, keeping: ["c"]).map(\.name) == ["a", "b"])
        #expect(retention.clipsToDelete(clips, now: 1000, keeping: ["a"]).map(\.name) == ["b"],
                "a is being written, c is the newest: only b goes")
    }

    @Test func clipNamesAreTheOnlyOnesServedOrDeleted() {
        let name = RecordingFileName.make(time: WallClockTime(seconds: 1_795_000_000, nanoseconds: 5_000_000), kind: "presence")
        #expect(name == "20261118T110640.005Z-presence.mkv")
        #expect(RecordingFileName.isRecording(name))
        #expect(RecordingFileName.isRecording(RecordingFileName.make(time: .now(), kind: "code", attempt: 2)))
        for bad in ["../20261118T084640.005Z-presence.mkv", "20261118T084640.005Z-presence.mkv/x", "notes.mkv",
                    "20261118T084640.005Z-presence.jpg", "20261118T084640.005Z pres.mkv"] {
            #expect(!RecordingFileName.isRecording(bad), "\(bad)")
        }
    }
}
