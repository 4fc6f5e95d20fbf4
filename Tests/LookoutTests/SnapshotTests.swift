import Foundation
import Lookout
import Testing

@Suite("Snapshots", .serialized)
struct SnapshotTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lookout-snapshots-\(UUID().uuidString)").path
    }

    /// `lookout run` on the sample clip with events and stats; the lines and the stats object.
    static func run(_ extra: [String], through shell: String? = nil) throws -> (lines: [[String: Any]], stats: [String: Any], errors: [String], status: Int32) {
        let arguments = ["run", "--input", Fixtures.path("sample.mjpeg"), "--events", "changes", "--stats"] + extra
        let process = try shell.map { try BackgroundProcess("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", $0, lookoutBinary] + arguments) }
            ?? BackgroundProcess(lookoutBinary, arguments)
        let status = process.waitForExit(timeout: 60)
        let lines = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let stats = lines.last { $0["kind"] as? String == "stats" } ?? [:]
        return (lines.filter { $0["kind"] as? String != "stats" }, stats, process.errors.lines, status)
    }

    @Test func eachEventGetsAJPEGOfItsFrameAndTheKeepLimitHolds() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // An old snapshot from an earlier run counts towards the limit, and goes first.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = "20000101T000000.000Z-f000000-1-code.jpg"
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: directory + "/" + old))
        try Data("not mine".utf8).write(to: URL(fileURLWithPath: directory + "/notes.txt"))

        let run = try Self.run(["--snapshots", directory, "--snapshot-keep", "3", "--snapshot-clean"])
        #expect(run.status == 0)
        let names = run.lines.compactMap { $0["snapshot"] as? String }
        #expect(names.count == 4, "code, code, face_enter, presence on: \(run.lines)")
        #expect(names == names.sorted(), "names sort by time")
        for (line, name) in zip(run.lines.filter { $0["snapshot"] != nil }, names) {
            let frame = try #require(line["frame"] as? Int), kind = try #require(line["kind"] as? String)
            #expect(name.contains("-f\(String(format: "%06d", frame))-") && name.hasSuffix("-\(kind).jpg"))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let kept = files.filter { SnapshotFileName.isSnapshot($0) }
        #expect(kept == Array(names.suffix(3)), "the newest 3 kept, the old one and the first deleted: \(files)")
        #expect(files.contains("notes.txt"), "other files are left alone")
        #expect(!files.contains { $0.hasPrefix(".") }, "no temporary file left: \(files)")
        for name in kept {
            let boxed = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            let clean = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + SnapshotFileName.cleanCopy(of: name)))
            #expect(try jpegSize(boxed) == (1280, 720) && jpegSize(clean) == (1280, 720))
            #expect(boxed != clean, "boxes are drawn on one, not the other")
        }
        #expect((run.stats["snapshots"] as? [String: Any])?["written"] as? Int == 4)
    }

    @Test func anUnwritableDirectoryWarnsAndDetectionGoesOn() throws {
        let plain = try Self.run([])
        let blocker = Self.temporaryDirectory()
        try Data("a file, not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        let run = try Self.run(["--snapshots", blocker + "/snapshots"])
        #expect(run.status == 0)
        #expect(run.lines.count == plain.lines.count, "the same events")
        #expect(run.stats["detections"] as? [String: Int] == plain.stats["detections"] as? [String: Int])
        // Each of the four events' snapshots failed.
        #expect((run.stats["snapshots"] as? [String: Any])?["failed"] as? Int == 4, "\(run.stats)")
        #expect(run.errors.filter { $0.contains("warning: snapshot not written") }.count == 1, "one warning, not one per event: \(run.errors)")
    }

    @Test func aFullFileSystemWarnsAndDetectionGoesOn() throws {
        let plain = try Self.run([])
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A 100 KB tmpfs in a mount namespace of its own: room for one snapshot, not four.
        let run = try Self.run(["--snapshots", directory],
                               through: #"mount -t tmpfs -o size=100k lookout-test "$LOOKOUT_DIR" && exec "$0" "$@""#
                                   .replacingOccurrences(of: "$LOOKOUT_DIR", with: directory))
        try #require(!run.errors.contains { $0.contains("mount:") || $0.contains("unshare:") }, "cannot mount a tmpfs here: \(run.errors)")
        #expect(run.status == 0)
        #expect(run.stats["detections"] as? [String: Int] == plain.stats["detections"] as? [String: Int])
        let snapshots = try #require(run.stats["snapshots"] as? [String: Any])
        #expect(snapshots["written"] as? Int == 1 && snapshots["failed"] as? Int == 3, "\(snapshots)")
        #expect(run.errors.contains { $0.contains("No space left on device") }, "\(run.errors)")
    }
}
