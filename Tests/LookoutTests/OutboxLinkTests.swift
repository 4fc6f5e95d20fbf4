import Foundation
import Testing
@testable import Lookout

/// A symbolic link planted at any name Lookout uses inside its state directory (`outbox`, a
/// journal's folder, the locks, a segment, the next segment) is refused in one sentence naming
/// it, and what it points to is untouched: not written, not truncated, not created. The state
/// directory itself may be reached through a link: that path is the user's.
@Suite("Outbox, links in the state directory")
struct OutboxLinkTests {
    /// A state directory, and a place outside it that links point to.
    final class Setting {
        let folder: ScratchFolder
        var state: String { folder.path + "/state" }
        var outside: String { folder.path + "/outside" }
        /// A file outside with contents that must survive (not a valid record: a journal that
        /// read it as its last segment would cut it off as a torn record).
        var victim: String { outside + "/victim" }
        static let victimBytes = Array("precious, not Lookout's\n".utf8)

        init() throws {
            folder = try ScratchFolder()
            for path in [state, outside] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
            try Data(Self.victimBytes).write(to: URL(fileURLWithPath: victim))
        }

        func plant(_ name: String, pointingTo target: String) throws {
            try FileManager.default.createDirectory(atPath: (name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try #require(symlink(target, name) == 0, "cannot make the link \(name)")
        }

        func journal(_ name: String = "cam", limits: OutboxLimits = OutboxLimits()) throws -> OutboxJournal {
            try OutboxJournal(in: try OutboxDirectory.prepare(stateDirectory: state), name: name, limits: limits) { _ in }
        }

        /// What is outside: every name, and the victim's bytes.
        var outsideNow: [String: [UInt8]] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: outside)) ?? []
            return Dictionary(uniqueKeysWithValues: names.map { name in
                (name, ((try? Data(contentsOf: URL(fileURLWithPath: outside + "/" + name))).map { [UInt8]($0) }) ?? [])
            })
        }

        static let untouched = ["victim": victimBytes]
    }

    @Test func theSentenceNamesTheLink() {
        #expect(OutboxError.symbolicLink(path: "/s/outbox/x-cam/lock").description
                == "/s/outbox/x-cam/lock is a symbolic link; Lookout does not follow links in its state directory: remove it")
    }

    @Test func theOutboxFolderAsALinkIsRefused() throws {
        let setting = try Setting()
        try setting.plant(setting.state + "/outbox", pointingTo: setting.outside)
        #expect(throws: OutboxError.symbolicLink(path: setting.state + "/outbox")) { try OutboxDirectory.prepare(stateDirectory: setting.state) }
        #expect(setting.outsideNow == Setting.untouched)
    }

    @Test func aJournalFolderAsALinkIsRefused() throws {
        let setting = try Setting()
        try setting.plant(setting.state + "/outbox/cam", pointingTo: setting.outside)
        #expect(throws: OutboxError.symbolicLink(path: setting.state + "/outbox/cam")) { try setting.journal() }
        #expect(setting.outsideNow == Setting.untouched)
    }

    @Test func theStateDirectorysLockAsALinkIsRefused() throws {
        let setting = try Setting()
        try setting.plant(setting.state + "/outbox/lock", pointingTo: setting.outside + "/made")
        #expect(throws: OutboxError.symbolicLink(path: setting.state + "/outbox/lock")) { try OutboxDirectory.prepare(stateDirectory: setting.state) }
        #expect(setting.outsideNow == Setting.untouched, "no file made outside")
    }

    @Test func aJournalsLockAsALinkIsRefused() throws {
        let setting = try Setting()
        for (target, name) in [(setting.outside + "/made", "dangling"), (setting.victim, "existing")] {
            try setting.plant(setting.state + "/outbox/\(name)/lock", pointingTo: target)
            #expect(throws: OutboxError.symbolicLink(path: setting.state + "/outbox/\(name)/lock")) { try setting.journal(name) }
        }
        #expect(setting.outsideNow == Setting.untouched, "no file made outside, the existing one unchanged")
    }

    @Test func anExistingSegmentAsALinkIsRefusedAndItsTargetKeptWhole() throws {
        let setting = try Setting()
        let journal = try setting.journal()
        _ = try journal.append(topic: "t") { _ in Array("event".utf8) }
        journal.close()
        let segment = setting.state + "/outbox/cam/" + OutboxSegment.name(number: 1)
        try FileManager.default.removeItem(atPath: segment)
        try setting.plant(segment, pointingTo: setting.victim)
        #expect(throws: OutboxError.symbolicLink(path: segment)) { try setting.journal() }
        #expect(setting.outsideNow == Setting.untouched, "the target is not cut off as a torn record")
    }

    @Test func theNextSegmentAsALinkIsRefusedAtOpeningAndAtRotation() throws {
        let setting = try Setting()
        let segment2 = setting.state + "/outbox/cam/" + OutboxSegment.name(number: 2)
        // At opening: the link is listed as a segment of the journal.
        var journal = try setting.journal()
        journal.close()
        try setting.plant(segment2, pointingTo: setting.victim)
        #expect(throws: OutboxError.symbolicLink(path: segment2)) { try setting.journal() }
        #expect(setting.outsideNow == Setting.untouched)

        // While open: the link appears where the next segment is to be made.
        try FileManager.default.removeItem(atPath: segment2)
        journal = try setting.journal(limits: OutboxLimits(maximumBytes: 1 << 20))
        let segment3 = setting.state + "/outbox/cam/" + OutboxSegment.name(number: 3)
        try setting.plant(segment3, pointingTo: setting.outside + "/made")
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 1000)
        var refusal: OutboxError?
        for _ in 0..<1000 where refusal == nil {
            do throws(OutboxError) { _ = try journal.append(topic: "t") { _ in payload } } catch { refusal = error }
        }
        #expect(refusal == .symbolicLink(path: segment3), "the segment size is passed within 1000 events of 1 KB")
        #expect(setting.outsideNow == Setting.untouched, "no file made outside")
        journal.close()
    }

    @Test func theStateDirectoryItselfMayBeALink() throws {
        let setting = try Setting()
        let real = setting.folder.path + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: setting.state)
        try setting.plant(setting.state, pointingTo: real)
        let journal = try setting.journal()
        #expect(try journal.append(topic: "t") { _ in Array("event".utf8) } == 1)
        journal.close()
        #expect(FileManager.default.fileExists(atPath: real + "/outbox/cam/" + OutboxSegment.name(number: 1)))
    }

    /// Through the command: a journal's folder planted as a link is one sentence, exit 73, and
    /// nothing is written where it points.
    @Test func lookoutRefusesALinkInOneSentenceWithExit73() throws {
        let setting = try Setting()
        let journal = setting.state + "/outbox/links-cam"
        try setting.plant(journal, pointingTo: setting.outside)
        let result = try lookout(["run", "--input", "cam=" + Fixtures.path("qr-mono.y4m"), "--mqtt", "mqtt://127.0.0.1:1/x",
                                  "--mqtt-client-id", "links", "--state-dir", setting.state])
        #expect(result.status == 73)
        // The last line: the node's connection (to a port where nothing listens) may be said before it.
        #expect(result.stderr.split(separator: "\n").last
                == "lookout: \(journal) is a symbolic link; Lookout does not follow links in its state directory: remove it")
        #expect(result.stdout.isEmpty)
        #expect(setting.outsideNow == Setting.untouched)
    }
}
