import Foundation
import Testing
@testable import Lookout

/// The MQTT outbox's journal alone, on real files in a scratch folder: what it keeps, what it
/// drops at its bounds, what survives damage, and the numbers it gives.
@Suite("Outbox journal")
struct OutboxJournalTests {
    /// Warnings the journal said, and a clock the test moves.
    final class Recorder: @unchecked Sendable {
        var warnings: [String] = []
        var now: Int64 = 1_700_000_000_000
    }

    /// The journal at `directory`, `<state directory>/outbox/<name>`.
    static func open(_ directory: String, _ recorder: Recorder, limits: OutboxLimits = OutboxLimits(),
                     boot: String = "boot-a") throws -> OutboxJournal {
        let parts = directory.split(separator: "/", omittingEmptySubsequences: false)
        try #require(parts.count > 2 && parts[parts.count - 2] == "outbox", "not a journal's folder: \(directory)")
        let outbox = try OutboxDirectory.prepare(stateDirectory: parts.dropLast(2).joined(separator: "/"))
        return try OutboxJournal(in: outbox, name: String(parts[parts.count - 1]), limits: limits, clock: { recorder.now }, boot: boot) {
            recorder.warnings.append($0)
        }
    }

    /// The bytes of the record a clean close ends the journal with.
    static let closedRecordBytes = OutboxRecord.closed(nextSequence: 0).encoded().count

    static func payload(_ sequence: UInt64, bytes: Int = 20) -> [UInt8] {
        Array("{\"n\":\(sequence)}".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: bytes)
    }

    /// Every event not done, in order, as the publisher reads them.
    static func pending(_ journal: OutboxJournal) -> [OutboxJournal.Event] {
        var events: [OutboxJournal.Event] = []
        var after: UInt64 = 0
        while let event = journal.event(after: after) {
            events.append(event)
            after = event.sequence
        }
        return events
    }

    /// A journal with events 1 to 3 that ended without its clean close (a process killed, or a
    /// machine that stopped), under `boot`.
    static func endedUncleanly(_ directory: String, _ recorder: Recorder, boot: String) throws {
        let journal = try open(directory, recorder, boot: boot)
        for _ in 1...3 { _ = try journal.append(topic: "t") { payload($0) } }
        journal.close()
        try removeClosingRecord(directory)
    }

    /// Cuts the clean close's record off the newest segment: the journal as an unclean end leaves it.
    static func removeClosingRecord(_ directory: String) throws {
        let file = directory + "/" + (try #require(try segmentFiles(directory).last))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(truncate(file, off_t(size - closedRecordBytes)) == 0)
    }

    static func segmentFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("segment-") }.sorted()
    }

    @Test func eventsComeBackInOrderAfterReopening() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        let directory = folder.journalPath
        var journal = try Self.open(directory, recorder)
        for expected in UInt64(1)...5 {
            #expect(try journal.append(topic: "t/events") { Self.payload($0) } == expected)
        }
        journal.close()
        journal = try Self.open(directory, recorder)
        let events = Self.pending(journal)
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(events.map(\.payload) == (UInt64(1)...5).map { Self.payload($0) })
        #expect(events.allSatisfy { $0.topic == "t/events" && $0.wallTime == recorder.now })
        #expect(journal.nextSequence == 6)
        #expect(recorder.warnings.isEmpty)
        var status = stat()
        #expect(stat(directory, &status) == 0 && status.st_mode & 0o777 == 0o700)
    }

    @Test func theDoneMarkFollowsAcknowledgementsWithoutAGap() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        var journal = try Self.open(folder.journalPath, recorder)
        for _ in 1...5 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        try journal.acknowledge(2)
        #expect(journal.done == 0) // 1 is not acknowledged yet
        try journal.acknowledge(1)
        try journal.acknowledge(4)
        #expect(journal.done == 2)
        #expect(journal.pendingCount == 3)
        journal.close()
        // 4 was acknowledged but not marked done: delivered again (at least once), with 3 and 5.
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [3, 4, 5])
        try journal.acknowledge(3)
        try journal.acknowledge(5)
        #expect(journal.done == 3)
        try journal.acknowledge(4)
        #expect(journal.done == 5)
        #expect(journal.pendingCount == 0)
    }

    @Test func theSizeBoundDropsTheOldestAndIsNeverPassed() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        let limits = OutboxLimits(maximumBytes: 64 << 10, maximumAge: 86_400)
        let journal = try Self.open(folder.journalPath, recorder, limits: limits)
        var largest: Int64 = 0
        for _ in 1...400 {
            _ = try journal.append(topic: "t/events") { Self.payload($0, bytes: 500) }
            largest = max(largest, journal.bytes)
        }
        #expect(largest <= limits.maximumBytes)
        #expect(largest > limits.maximumBytes / 2)
        #expect(journal.dropped > 0)
        #expect(journal.dropped + journal.pendingCount == 400)
        let events = Self.pending(journal)
        // The newest are kept, without a gap.
        #expect(events.last?.sequence == 400)
        #expect(events.map(\.sequence) == Array(UInt64(400 - events.count + 1)...400))
        #expect(journal.done == UInt64(400 - events.count))
        #expect(journal.lastDropCause == "full (65536 bytes)")
        let onDisk = try Self.segmentFiles(folder.journalPath).reduce(Int64(0)) {
            $0 + Int64((try FileManager.default.attributesOfItem(atPath: folder.journalPath + "/" + $1)[.size] as? Int) ?? 0)
        }
        #expect(onDisk == journal.bytes)
    }

    @Test func theAgeBoundDropsOldEvents() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        let journal = try Self.open(folder.journalPath, recorder, limits: OutboxLimits(maximumBytes: 1 << 20, maximumAge: 60))
        for _ in 1...3 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        recorder.now += 30_000
        _ = try journal.append(topic: "t") { Self.payload($0) }
        #expect(journal.dropped == 0)
        recorder.now += 31_000 // the first three are 61 s old, the fourth 31 s
        try journal.dropExpired()
        #expect(journal.dropped == 3)
        #expect(journal.lastDropCause == "older than 60 s")
        #expect(Self.pending(journal).map(\.sequence) == [4])
        #expect(journal.done == 3)
    }

    @Test func aTornLastRecordLosesNothingEarlierAndItsNumberIsNotGivenAgain() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        var journal = try Self.open(folder.journalPath, recorder)
        for _ in 1...3 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        journal.close()
        let file = folder.journalPath + "/" + (try #require(try Self.segmentFiles(folder.journalPath).last))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        // The close's own record, and the end of event 3's.
        #expect(truncate(file, off_t(size - Self.closedRecordBytes - 5)) == 0)
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [1, 2])
        #expect(recorder.warnings.count == 1)
        #expect(recorder.warnings.first?.contains("cut off a torn last record (") == true)
        #expect(recorder.warnings.first?.contains(" bytes, event 3, lost) in ") == true)
        #expect(journal.dropped == 1)
        // Event 3 may have gone out before its record was cut: 4 comes next.
        #expect(try journal.append(topic: "t") { Self.payload($0) } == 4)
        journal.close()
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [1, 2, 4])
        #expect(recorder.warnings.count == 1)
    }

    @Test func afterTheMachineCrashedNumbersGoOnPastTheReservation() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        try Self.endedUncleanly(folder.journalPath, recorder, boot: "boot-a")
        // The same boot (Lookout killed): the kernel had every record, numbers go on by one.
        var journal = try Self.open(folder.journalPath, recorder, boot: "boot-a")
        #expect(journal.nextSequence == 4)
        #expect(recorder.warnings.isEmpty)
        journal.close()
        try Self.removeClosingRecord(folder.journalPath)
        // Another boot: events numbered after the last sync may have gone out and been lost.
        journal = try Self.open(folder.journalPath, recorder, boot: "boot-b")
        #expect(journal.nextSequence == OutboxJournal.reservation + 1)
        #expect(Self.pending(journal).map(\.sequence) == [1, 2, 3])
        #expect(recorder.warnings == ["outbox \(folder.journalPath): not closed before the machine restarted; event numbers go on from 1025, past any that may have gone out unsynced"])
        journal.close()
        // Closed cleanly, another boot changes nothing.
        journal = try Self.open(folder.journalPath, recorder, boot: "boot-c")
        #expect(journal.nextSequence == OutboxJournal.reservation + 1)
        #expect(recorder.warnings.count == 1)
    }

    /// Without a boot ID to compare (systemd's ProcSubset=pid hides it), any unclean end counts
    /// as a crash of the machine: numbers go on past the reservation.
    @Test func withoutABootIDAnUncleanEndSkipsTheReservation() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        try Self.endedUncleanly(folder.journalPath, recorder, boot: "")
        var journal = try Self.open(folder.journalPath, recorder, boot: "")
        #expect(journal.nextSequence == OutboxJournal.reservation + 1)
        #expect(Self.pending(journal).map(\.sequence) == [1, 2, 3])
        journal.close()
        // Closed cleanly: nothing skipped.
        journal = try Self.open(folder.journalPath, recorder, boot: "")
        #expect(journal.nextSequence == OutboxJournal.reservation + 1)
    }

    /// An event that cannot be read back is lost and counted, and the done mark moves past it:
    /// the events after it are delivered and done as before.
    @Test func anUnreadableEventDoesNotHoldTheDoneMark() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        let journal = try Self.open(folder.journalPath, recorder)
        for _ in 1...3 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        try journal.sync()
        // The first event's bytes damaged on disk after they were written.
        let file = folder.journalPath + "/" + (try #require(try Self.segmentFiles(folder.journalPath).last))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let first = try #require(Self.range(of: Array("{\"n\":1}".utf8), in: bytes))
        bytes[first + 3] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(Self.pending(journal).map(\.sequence) == [2, 3])
        #expect(journal.dropped == 1 && journal.done == 1)
        try journal.acknowledge(2)
        try journal.acknowledge(3)
        #expect(journal.done == 3 && journal.count(after: 0) == 0)
        journal.close()
    }

    /// An opening that fails before its first segment is an error, not a crash.
    @Test func aJournalThatCannotBeginIsRefused() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        // Where the first segment would go, a folder.
        try FileManager.default.createDirectory(atPath: folder.journalPath + "/" + OutboxSegment.name(number: 1), withIntermediateDirectories: true)
        #expect(throws: OutboxError.self) { _ = try Self.open(folder.journalPath, recorder) }
    }

    @Test func garbageAfterTheLastRecordIsCutOff() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        var journal = try Self.open(folder.journalPath, recorder)
        for _ in 1...3 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        journal.close()
        let file = folder.journalPath + "/" + (try #require(try Self.segmentFiles(folder.journalPath).last))
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((0..<100).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }))
        try handle.close()
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [1, 2, 3])
        #expect(Self.pending(journal).map(\.payload) == (UInt64(1)...3).map { Self.payload($0) })
        #expect(recorder.warnings.contains { $0.contains("torn last record (100 bytes)") })
    }

    @Test func aDamagedRecordInTheMiddleLosesOnlyItself() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        var journal = try Self.open(folder.journalPath, recorder)
        for _ in 1...3 { _ = try journal.append(topic: "t") { Self.payload($0) } }
        journal.close()
        let file = folder.journalPath + "/" + (try #require(try Self.segmentFiles(folder.journalPath).last))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let second = try #require(Self.range(of: Array("{\"n\":2}".utf8), in: bytes))
        bytes[second + 3] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [1, 3])
        #expect(journal.dropped == 1)
        #expect(recorder.warnings.count == 1)
        #expect(recorder.warnings.first?.hasSuffix("cannot be read; 1 event lost") == true)
        #expect(journal.nextSequence == 4)
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test func theLockRefusesASecondOpener() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        let first = try Self.open(folder.journalPath, recorder)
        #expect(throws: OutboxError.inUse(directory: folder.journalPath)) { try Self.open(folder.journalPath, recorder) }
        #expect(OutboxError.inUse(directory: folder.journalPath).description
                == "another Lookout process uses \(folder.journalPath)")
        first.close()
        let second = try Self.open(folder.journalPath, recorder)
        #expect(second.nextSequence == 1)
    }

    /// One lock per state directory and process, whatever path names it: a service's node, its
    /// cameras and a reload share it, and it stays held while any of them uses it.
    @Test func theStateDirectoryIsLockedOncePerProcess() throws {
        let folder = try ScratchFolder()
        let link = folder.path + "-link"
        #expect(symlink(folder.path, link) == 0)
        defer { unlink(link) }
        var first: OutboxDirectory? = try OutboxDirectory.prepare(stateDirectory: folder.path)
        let second = try OutboxDirectory.prepare(stateDirectory: link)
        #expect(first === second)
        first = nil
        #expect(OutboxProcessTests.lockHeld(folder.path + "/outbox/lock"))
        withExtendedLifetime(second) {}
    }

    @Test func sequencesContinueAfterEverythingIsDeliveredAndCompacted() throws {
        let folder = try ScratchFolder()
        let recorder = Recorder()
        var journal = try Self.open(folder.journalPath, recorder, limits: OutboxLimits(maximumBytes: 1 << 20))
        for sequence in UInt64(1)...300 {
            _ = try journal.append(topic: "t") { Self.payload($0, bytes: 400) }
            try journal.acknowledge(sequence)
        }
        #expect(journal.done == 300)
        #expect(journal.pendingCount == 0)
        journal.close()
        journal = try Self.open(folder.journalPath, recorder, limits: OutboxLimits(maximumBytes: 1 << 20))
        // Only the segment begun now is left, and it says where the numbers are.
        #expect(try Self.segmentFiles(folder.journalPath).count == 1)
        #expect(journal.bytes < 100)
        #expect(Self.pending(journal).isEmpty)
        #expect(try journal.append(topic: "t") { Self.payload($0) } == 301)
        journal.close()
        journal = try Self.open(folder.journalPath, recorder)
        #expect(Self.pending(journal).map(\.sequence) == [301])
        #expect(journal.nextSequence == 302)
        #expect(recorder.warnings.isEmpty)
    }
}

extension ScratchFolder {
    /// A journal's folder in the scratch folder as the state directory.
    var journalPath: String { path + "/outbox/cam" }
}
