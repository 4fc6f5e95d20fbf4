import Foundation
import Lookout
import Testing

/// `snapshot-on`: only the events named take a snapshot, per camera in a file or for all with the option.
@Suite struct SnapshotTriggerTests {
    private func run(_ arguments: [String], folder: String) throws -> (lines: [[String: Any]], files: [String]) {
        let result = try lookout(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jpg") }
        return (lines, files)
    }

    @Test func onlyTheNamedEventsTakeASnapshot() throws {
        let folder = NSTemporaryDirectory() + "lookout-snapshot-on-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (lines, files) = try run(["run", "-i", Fixtures.path("sample.mjpeg"), "--events", "changes", "-q",
                                      "--snapshots", folder, "--snapshot-on", "code"], folder: folder)
        let codes = lines.filter { $0["kind"] as? String == "code" }
        let others = lines.filter { ["face_enter", "presence"].contains($0["kind"] as? String ?? "") }
        try #require(codes.count == 2 && !others.isEmpty, "\(lines.map { $0["kind"] ?? "" })")
        #expect(codes.allSatisfy { $0["snapshot"] is String })
        #expect(others.allSatisfy { $0["snapshot"] == nil })
        #expect(files.count == 2)
    }

    @Test func aCameraInTheFileChoosesItsOwn() throws {
        let folder = NSTemporaryDirectory() + "lookout-snapshot-on-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/lookout.yml"
        try """
            events:
              events: changes
            snapshots:
              snapshots: \(folder)/shots
            cameras:
              faces:
                input: \(Fixtures.path("sample.mjpeg"))
                snapshot-on: [face_enter]
              codes:
                input: \(Fixtures.path("sample.mjpeg"))

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let (lines, files) = try run(["run", "--config", file, "-q"], folder: folder + "/shots")
        let faces = lines.filter { $0["camera"] as? String == "faces" && $0["snapshot"] is String }
        let codes = lines.filter { $0["camera"] as? String == "codes" && $0["snapshot"] is String }
        #expect(!faces.isEmpty && faces.allSatisfy { $0["kind"] as? String == "face_enter" })
        #expect(Set(codes.compactMap { $0["kind"] as? String }) == ["code", "face_enter", "presence"])
        #expect(files.filter { $0.hasPrefix("faces/") }.count == faces.count)
        #expect(files.filter { $0.hasPrefix("codes/") }.count == codes.count)
    }
}
