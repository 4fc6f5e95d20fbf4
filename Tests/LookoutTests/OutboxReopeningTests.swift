import Foundation
import Testing
@testable import Lookout

/// A journal reopened again and again (a camera restarted by every reload, a service restarted
/// by every deploy) while the broker never acknowledges anything: its files and the descriptors
/// it holds stay bounded, and every event, the done mark and the numbers come through whole.
@Suite("Outbox journal, reopened")
struct OutboxReopeningTests {
    typealias Journal = OutboxJournalTests

    /// What this process's descriptors open in `directory` (readlink of each /proc/self/fd
    /// entry): other suites run alongside in this process, so only links into it count.
    static func descriptors(into directory: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return nil }
            return target.hasPrefix(directory + "/") ? target : nil
        }
    }

    /// The folder's path with every link resolved, as /proc/self/fd shows it.
    static func resolved(_ path: String) throws -> String {
        let real = try #require(realpath(path, nil), "cannot resolve \(path)")
        defer { free(real) }
        return String(cString: real)
    }

    static func segmentDescriptors(into directory: String) -> Int {
        descriptors(into: directory).filter { $0.contains("/segment-") }.count
    }

    /// Opened 50 times, 10 events of 1 KB added every other time (events never acknowledged),
    /// every third opening ended as a killed process ends it: the segments span several files,
    /// and yet the files stay within what the bytes need, one segment is held open after each
    /// opening and at most two once every event was read back.
    @Test func fiftyOpeningsKeepFilesAndDescriptorsBounded() throws {
        let folder = try ScratchFolder()
        let recorder = Journal.Recorder()
        let limits = OutboxLimits(maximumBytes: 1 << 20, maximumAge: 86_400)
        let directory = folder.journalPath
        var journal = try Journal.open(directory, recorder, limits: limits)
        for _ in 1...5 { _ = try journal.append(topic: "t") { Journal.payload($0, bytes: 1000) } }
        try journal.acknowledge(1)
        try journal.acknowledge(2)
        journal.close()
        let real = try Self.resolved(directory)
        var expected = UInt64(3)...5
        var segmentCounts: [Int] = []
        for round in 1...50 {
            journal = try Journal.open(directory, recorder, limits: limits)
            #expect(Self.segmentDescriptors(into: real) == 1, "round \(round): the segment appended to only")
            if round % 2 == 0 {
                for _ in 1...10 {
                    let sequence = try #require(try journal.append(topic: "t") { Journal.payload($0, bytes: 1000) })
                    expected = expected.lowerBound...sequence
                }
            }
            let events = Journal.pending(journal)
            #expect(events.map(\.sequence) == Array(expected), "round \(round)")
            #expect(events.map(\.payload) == expected.map { Journal.payload($0, bytes: 1000) }, "round \(round)")
            #expect(Self.segmentDescriptors(into: real) <= 2, "round \(round): one more to read back")
            #expect(Self.descriptors(into: real).count <= 3, "round \(round): and the lock")
            let files = try Journal.segmentFiles(directory)
            segmentCounts.append(files.count)
            #expect(files.count <= Int((journal.bytes + limits.segmentBytes - 1) / limits.segmentBytes) + 1, "round \(round): \(files.count) files for \(journal.bytes) bytes")
            journal.close()
            #expect(Self.descriptors(into: real).isEmpty, "round \(round): closed")
            if round % 3 == 0 { try Journal.removeClosingRecord(directory) }
        }
        // The events took several segments (so reading back opened older ones), not one a round.
        #expect(segmentCounts.max().map { $0 > 2 && $0 < 10 } == true, "\(segmentCounts)")

        journal = try Journal.open(directory, recorder, limits: limits)
        #expect(journal.done == 2)
        #expect(expected == 3...255)
        #expect(journal.nextSequence == 256)
        #expect(Journal.pending(journal).map(\.sequence) == Array(expected))
        #expect(journal.dropped == 0)
        #expect(recorder.warnings.isEmpty)
        // Acknowledged at last: the done mark moves, the files wholly done go, the numbers go on.
        for sequence in expected { try journal.acknowledge(sequence) }
        #expect(journal.done == 255 && journal.pendingCount == 0)
        #expect(try journal.append(topic: "t") { Journal.payload($0) } == 256)
        #expect(try Journal.segmentFiles(directory).count == 1)
        journal.close()
        journal = try Journal.open(directory, recorder, limits: limits)
        #expect(journal.done == 255)
        #expect(Journal.pending(journal).map(\.sequence) == [256])
        #expect(journal.nextSequence == 257)
        journal.close()
    }

    /// With nothing new between openings (a camera restarted that saw nothing while the broker
    /// was away), reopening adds no file: the events waiting stay in the one segment.
    @Test func reopeningWithoutNewEventsAddsNoFile() throws {
        let folder = try ScratchFolder()
        let recorder = Journal.Recorder()
        var journal = try Journal.open(folder.journalPath, recorder)
        for _ in 1...3 { _ = try journal.append(topic: "t") { Journal.payload($0) } }
        journal.close()
        for round in 1...50 {
            journal = try Journal.open(folder.journalPath, recorder)
            #expect(try Journal.segmentFiles(folder.journalPath) == [OutboxSegment.name(number: 1)], "round \(round)")
            #expect(Journal.pending(journal).map(\.sequence) == [1, 2, 3], "round \(round)")
            journal.close()
        }
        journal = try Journal.open(folder.journalPath, recorder)
        #expect(journal.nextSequence == 4 && journal.done == 0)
        #expect(recorder.warnings.isEmpty)
        journal.close()
    }
}
