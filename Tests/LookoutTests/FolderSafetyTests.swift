import Foundation
@testable import Lookout
import Testing

/// Files stay in their folder (issue 28, part 3), against the running binary: links planted in
/// the snapshot and clip folders are neither written through nor served, a per-camera subfolder
/// that is a link is not entered, a read-only folder gives lines that name no snapshot, and
/// retention never deletes a clip a `recording` line has just named.
@Suite("Folder safety", .serialized)
struct FolderSafetyTests {
    static let outsideBytes = Data("outside the folder: must stay as it is\n".utf8)

    /// Removes a folder of tens of thousands of links (rm is quicker at it than FileManager).
    static func remove(_ root: String) {
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: "/bin/rm")
        process.arguments = ["-rf", root]
        try? process.run()
        process.waitUntilExit()
    }

    /// A fresh temporary folder holding `outside` (the planted links' target) and nothing else.
    static func workspace() throws -> (root: String, outside: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-folders-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let outside = root + "/outside"
        try outsideBytes.write(to: URL(fileURLWithPath: outside))
        return (root, outside)
    }

    /// The JSON lines among `lines`.
    static func json(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// True when `path` is a regular file, looked at without following a link.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// True when `path` is a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// A uniform grey 1280x720 JPEG: a frame with no event.
    static func blankFrame() throws -> Data {
        Data(try PictureRenderer().jpeg(of: FramePicture(copying: [UInt8](repeating: 200, count: 1280 * 720),
                                                         width: 1280, height: 720, pixelFormat: .gray)))
    }

    /// `lookout run --input - ARGS --http 127.0.0.1:0`, with `first` written before waiting for
    /// the server (the input's format is read from its first bytes before the server starts).
    static func startReadingStandardInput(_ arguments: [String], first: [Data]) throws -> (BackgroundProcess, String) {
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", "-"] + arguments + ["--http", "127.0.0.1:0"], withInput: true)
        for frame in first { try process.write(frame) }
        let marker = "web view at "
        _ = process.errors.wait(timeout: 60) { $0.contains { $0.contains(marker) } }
        let line = try #require(process.errors.lines.first { $0.contains(marker) }, "no web view line: \(process.errors.lines)")
        let base = try #require(line.range(of: marker).map { String(line[$0.upperBound...].dropLast()) })
        return (process, base)
    }

    /// Symbolic links to `target` named as every name `names` gives for each of `milliseconds`
    /// (since the epoch): whatever millisecond a frame is read at, its files' names are taken.
    static func plantLinks(in folder: String, to target: String, milliseconds: Range<Int64>,
                           names: (WallClockTime) -> [String]) -> Int {
        var planted = 0
        for millisecond in milliseconds {
            for name in names(wallClock(millisecond: millisecond)) where symlink(target, folder + "/" + name) == 0 { planted += 1 }
        }
        return planted
    }

    /// The wall-clock time of a millisecond since the epoch.
    static func wallClock(millisecond: Int64) -> WallClockTime {
        WallClockTime(seconds: millisecond / 1000, nanoseconds: Int32(millisecond % 1000) * 1_000_000)
    }

    @Test func linksPlantedAsTheNextFilesAreNeitherWrittenThroughNorServed() throws {
        let (root, outside) = try Self.workspace()
        defer { Self.remove(root) }
        let snapshots = root + "/snapshots", clips = root + "/clips"
        try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: clips, withIntermediateDirectories: false)
        // Links named like files the server may serve.
        let servedSnapshot = "20000101T000000.000Z-f000001-1-code.jpg", servedClip = "20000101T000000.000Z-presence.mkv"
        #expect(symlink(outside, snapshots + "/" + servedSnapshot) == 0 && symlink(outside, clips + "/" + servedClip) == 0)

        let blanks = 5 // the sample's first frame, with its two codes, is frame 5
        let (process, base) = try Self.startReadingStandardInput(
            ["--events", "changes", "--snapshots", snapshots, "--record", clips, "--record-on", "codes",
             "--pre-roll", "0", "--post-roll", "1"], first: Array(repeating: try Self.blankFrame(), count: blanks))
        // Every name the first code event's snapshot, its temporary file and the clip would have,
        // from now until the event: the first seconds before the frame is sent, then a planter
        // that stays seconds ahead of the clock until the recording line came, however slow the
        // machine (no window the reading must fit in).
        let start = Date()
        let planter = LinkPlanter(start: start) { milliseconds in
            Self.plantLinks(in: snapshots, to: outside, milliseconds: milliseconds) { time in
                let name = SnapshotFileName.make(time: time, sequence: UInt64(blanks), index: 1, kind: "code")
                return [name, "." + name + ".tmp"]
            } + Self.plantLinks(in: clips, to: outside, milliseconds: milliseconds) { [RecordingFileName.make(time: $0, kind: "code")] }
        }
        planter.plantAhead()
        planter.start()
        for frame in try RecordingTests.jpegFrames("sample.mjpeg") { try process.write(frame) }
        // A camera goes on sending frames. Read as fast as it comes, the input can be read to its
        // end before the code event reaches the recorder, and the clip ends only at a frame past
        // its post-roll: blank frames follow until the clip's line came, however slow the machine.
        let blank = try Self.blankFrame()
        let recorded = { (lines: [String]) in Self.json(lines).contains { $0["kind"] as? String == "recording" } }
        let deadline = Date(timeIntervalSinceNow: 120)
        while !recorded(process.output.lines), Date() < deadline {
            try process.write(blank)
            _ = process.output.wait(timeout: 0.1, until: recorded)
        }

        let lines = { Self.json(process.output.lines) }
        #expect(recorded(process.output.lines), "\(process.output.lines) \(process.errors.lines)")
        let (plantedUntil, milliseconds, planted) = planter.stop()
        #expect(planted == 3 * milliseconds, "three names a millisecond, each a new link")
        let codes = lines().filter { $0["kind"] as? String == "code" }
        try #require(codes.count == 2, "\(lines())")
        for code in codes {
            let time = try #require(code["time"] as? String)
            let read = try #require(ISO8601DateFormatter.withFractionalSeconds.date(from: time))
            try #require(read >= start && read < plantedUntil, "read while its names were planted: \(time)")
        }
        let names = codes.compactMap { $0["snapshot"] as? String }
        #expect(names.count == 2, "both code events name their snapshot: \(codes)")
        for name in names {
            // A planted link had the final name: the rename replaced the link, not its target.
            #expect(process.output.wait(timeout: 30) { _ in Self.isRegularFile(snapshots + "/" + name) }, "\(name) is a file in the folder")
            let served = try httpGet(base + "/snapshots/" + name)
            let onDisk = try Data(contentsOf: URL(fileURLWithPath: snapshots + "/" + name))
            #expect(served.status == 200 && served.body == onDisk)
            #expect(served.body.prefix(2) == Data([0xFF, 0xD8]), "a JPEG")
        }
        let recording = try #require(lines().first { $0["kind"] as? String == "recording" })
        let clip = try #require(recording["file"] as? String)
        #expect(clip.hasSuffix("-code-2.mkv"), "the planted name passed over: \(clip)")
        #expect(Self.isRegularFile(clips + "/" + clip))

        // Links named like served files are 404, never their target, and are not listed.
        // The window's first millisecond: before any frame was read, so its links are still there.
        let first = Self.wallClock(millisecond: Int64(start.timeIntervalSince1970 * 1000))
        let unusedSnapshot = SnapshotFileName.make(time: first, sequence: UInt64(blanks), index: 1, kind: "code")
        let unusedClip = RecordingFileName.make(time: first, kind: "code")
        #expect(Self.isLink(snapshots + "/" + unusedSnapshot) && Self.isLink(clips + "/" + unusedClip))
        for path in ["/snapshots/" + servedSnapshot, "/snapshots/" + unusedSnapshot, "/recordings/" + servedClip, "/recordings/" + unusedClip] {
            let answer = try httpGet(base + path)
            #expect(answer.status == 404 && !answer.body.contains(Self.outsideBytes), "\(path): \(answer.status) \(answer.text)")
        }
        let listed = try #require(try httpGet(base + "/api/recordings").json?["recordings"] as? [[String: Any]])
        #expect(listed.compactMap { $0["file"] as? String } == [clip], "only the clip, no link: \(listed)")

        try process.closeInput()
        #expect(process.errors.wait(timeout: 60) { $0.contains { $0.contains("input ended") } }, "\(process.errors.lines)")
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Self.outsideBytes, "the links' target is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["clips", "outside", "snapshots"])
        #expect(Self.isLink(snapshots + "/" + servedSnapshot) && Self.isLink(clips + "/" + servedClip), "planted links left alone")
    }

    @Test func aCameraSubfolderThatIsALinkIsNotEntered() throws {
        let (root, outside) = try Self.workspace()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let snapshots = root + "/snapshots", clips = root + "/clips"
        let elsewhere = [root + "/elsewhere-snapshots", root + "/elsewhere-clips"]
        for folder in [snapshots, clips] + elsewhere { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        // Camera a's subfolders are links to folders outside; camera b's are made by Lookout.
        #expect(symlink(elsewhere[0], snapshots + "/a") == 0 && symlink(elsewhere[1], clips + "/a") == 0)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", "a=" + Fixtures.path("sample.mjpeg"),
                                                            "--input", "b=" + Fixtures.path("sample.mjpeg"), "--events", "changes",
                                                            "--snapshots", snapshots, "--record", clips])
        #expect(process.waitForExit(timeout: 90) == 0, "\(process.errors.lines)")
        let lines = Self.json(process.output.lines)
        let a = lines.filter { $0["camera"] as? String == "a" }, b = lines.filter { $0["camera"] as? String == "b" }
        #expect(a.filter { $0["kind"] as? String == "code" }.count == 2 && b.filter { $0["kind"] as? String == "code" }.count == 2, "\(lines)")
        #expect(!a.contains { $0["snapshot"] != nil }, "no snapshot named for camera a: \(a)")
        #expect(!a.contains { $0["kind"] as? String == "recording" }, "no clip claimed for camera a: \(a)")
        let named = b.compactMap { $0["snapshot"] as? String }
        #expect(named.count == 4, "\(b)")
        for name in named { #expect(Self.isRegularFile(snapshots + "/b/" + name)) }
        let clipsOfB = b.filter { $0["kind"] as? String == "recording" }.compactMap { $0["file"] as? String }
        #expect(clipsOfB.count == 1 && clipsOfB.allSatisfy { Self.isRegularFile(clips + "/b/" + $0) }, "\(b)")
        for folder in elsewhere { #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [], "nothing written in \(folder)") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Self.outsideBytes)
        #expect(process.errors.lines.contains { $0.contains("warning: snapshot not written") && $0.contains(snapshots + "/a") },
                "\(process.errors.lines)")
    }

    @Test func aReadOnlySnapshotFolderGivesLinesThatNameNoSnapshot() throws {
        let writable = SnapshotTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: writable) }
        let plain = try SnapshotTests.run(["--snapshots", writable])
        #expect(plain.lines.compactMap { $0["snapshot"] as? String }.count == 4, "four snapshots when the folder can be written")
        let directory = SnapshotTests.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A read-only file system in a mount namespace of its own (root writes through mode bits).
        let run = try SnapshotTests.run(["--snapshots", directory],
                                        through: #"mount -t tmpfs -o ro lookout-test "$LOOKOUT_DIR" && exec "$0" "$@""#
                                            .replacingOccurrences(of: "$LOOKOUT_DIR", with: directory))
        try #require(!run.errors.contains { $0.contains("mount:") || $0.contains("unshare:") }, "cannot mount a tmpfs here: \(run.errors)")
        #expect(run.status == 0)
        #expect(run.lines.filter { ["code", "face_enter", "presence"].contains($0["kind"] as? String) }.count
                    == plain.lines.filter { ["code", "face_enter", "presence"].contains($0["kind"] as? String) }.count, "the same events")
        #expect(!run.lines.contains { $0["snapshot"] != nil }, "no line names a snapshot: \(run.lines)")
        let statistics = try #require(run.stats["snapshots"] as? [String: Any])
        #expect(statistics["written"] as? Int == 0 && statistics["failed"] as? Int == 4, "\(statistics)")
        #expect(run.errors.filter { $0.contains("Read-only file system") }.count == 1, "one warning: \(run.errors)")
    }

    @Test func aSmallRecordKeepNeverDeletesTheClipALineHasJustNamed() throws {
        let (root, _) = try Self.workspace()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clips = root + "/clips"
        // 1 s segments of about 1.4 MB with --record-keep 1M: every clip but the newest is over the limit.
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", "-", "--events", "changes", "--record", clips,
                                                            "--record-on", "always", "--segment", "1", "--record-keep", "1M"],
                                            withInput: true)
        let frames = try RecordingTests.jpegFrames("sample.mjpeg")
        try #require(frames.count == 60)
        let stream = frames + frames + frames // 6 s at 30 fps
        let recordingLines = { Self.json(process.output.lines).filter { $0["kind"] as? String == "recording" } }
        var fed = 0
        for segment in 1...4 {
            // Segment n ends when a frame past n s arrives; no later clip can end before more frames.
            let end = segment * 30 + 5
            for frame in stream[fed..<end] { try process.write(frame) }
            fed = end
            #expect(process.output.wait(timeout: 60) { _ in recordingLines().count == segment }, "\(process.output.lines)")
            let file = try #require(recordingLines().last?["file"] as? String)
            #expect(Self.isRegularFile(clips + "/" + file), "segment \(segment): \(file) is there once its line is out")
        }
        try process.closeInput()
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines)")
        let files = recordingLines().compactMap { $0["file"] as? String }
        #expect(files.count == 5, "\(files)")
        let newest = try #require(files.last)
        #expect(try RecordingTests.clips(in: clips) == [newest], "older clips deleted, the newest kept")
    }

    // MARK: The library

    @Test func aDirectoryHandleNeverFollowsALinkNorBlocksOnAFIFO() throws {
        let (root, outside) = try Self.workspace()
        defer { Self.remove(root) }
        let folder = root + "/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(symlink(outside, folder + "/link") == 0 && symlink(root, folder + "/sub") == 0 && mkfifo(folder + "/fifo", 0o644) == 0)
        let handle = try Folder(path: folder).open()
        #expect(throws: Errno(rawValue: EEXIST)) { try handle.createFile(named: "link") }
        #expect(throws: Errno(rawValue: ELOOP)) { try handle.openRegularFile(named: "link") }
        #expect(throws: Errno(rawValue: EINVAL)) { try handle.openRegularFile(named: "fifo") } // not opened for a writer
        #expect(throws: Errno(rawValue: EINVAL)) { try handle.removeRegularFile(named: "link") }
        #expect(throws: Errno(rawValue: EINVAL)) { try handle.createFile(named: "../escape") }
        #expect(throws: Errno(rawValue: ENOTDIR)) { try Folder(path: folder, subfolder: "sub").open(making: true) }
        #expect(try handle.status(named: "link").kind == .symbolicLink)
        // A new file, renamed over the link: the link goes, its target stays.
        let file = try handle.createFile(named: ".new.tmp")
        try file.writeAll(Array("mine".utf8))
        try file.close()
        try handle.rename(".new.tmp", to: "link")
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Self.outsideBytes)
        #expect(try handle.openRegularFile(named: "link").read(upTo: 100) == Array("mine".utf8))
        try handle.removeRegularFile(named: "link")
        #expect(try handle.names().sorted() == ["fifo", "sub"])
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-25T15:32:23.025Z`, as lines write `time`.
    static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

/// Plants links for the names of each millisecond from `start` until stopped, `lead` seconds ahead
/// of the clock, on a thread of its own: the files a slow machine writes late are still covered.
final class LinkPlanter: @unchecked Sendable {
    static let lead: Int64 = 5000
    /// Milliseconds of names planted at once, the clock read again between: a loaded machine
    /// that plants slowly still plants the next names first, never a batch that ends in the past.
    static let step: Int64 = 200
    /// Seconds between two looks at the clock once `lead` ahead.
    static let interval = 0.05
    private struct State {
        var next: Int64
        var planted = 0
    }
    // `plant` runs under the lock, so stop() returns after a step in progress.
    private let state: Locked<State>
    private let plant: (Range<Int64>) -> Int
    private let first: Int64
    private let stopRequested = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(start: Date, plant: @escaping (Range<Int64>) -> Int) {
        first = Int64(start.timeIntervalSince1970 * 1000)
        state = Locked(State(next: first))
        self.plant = plant
    }

    /// Plants, `step` by `step`, until `lead` past now.
    func plantAhead() {
        while state.withLock({ state -> Bool in
            let target = Int64(Date().timeIntervalSince1970 * 1000) + Self.lead
            guard target > state.next else { return false }
            let end = min(target, state.next + Self.step)
            state.planted += plant(state.next..<end)
            state.next = end
            return true
        }) {}
    }

    /// Keeps planting ahead, a batch every `interval`, until `stop()`.
    func start() {
        Thread.detachNewThread { [self] in
            while stopRequested.wait(timeout: .now() + Self.interval) == .timedOut { plantAhead() }
            finished.signal()
        }
    }

    /// Stops the planting; the end of the planted time, the milliseconds planted, the links made.
    func stop() -> (until: Date, milliseconds: Int, planted: Int) {
        stopRequested.signal()
        finished.wait()
        return state.withLock { (Date(timeIntervalSince1970: Double($0.next) / 1000), Int($0.next - first), $0.planted) }
    }
}
