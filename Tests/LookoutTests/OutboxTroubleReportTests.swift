#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Lookout

/// What a publisher says of its outbox's disk trouble: once when it starts, once when the work
/// that failed works again (with the events kept in memory meanwhile), nothing per event.
@Suite("Outbox trouble report")
struct OutboxTroubleReportTests {
    static let full = OutboxError.cannotWrite(path: "/s/outbox/n-cam/segment-0000000001.log", Errno(rawValue: ENOSPC))

    @Test func aFullDiskIsSaidOnceThenItsEndWithTheCount() {
        var report = OutboxTroubleReport()
        #expect(report.failed(.append, Self.full)
                == "cannot write the outbox file /s/outbox/n-cam/segment-0000000001.log: No space left on device; events wait in memory until the outbox can be written again (lost if Lookout stops before they are delivered)")
        report.keptEventInMemory()
        for _ in 1...29 {
            // A done mark not owed, a sync with nothing to sync: they prove nothing.
            #expect(report.succeeded(.other, directory: "/s/outbox/n-cam") == nil)
            #expect(report.succeeded(.sync, directory: "/s/outbox/n-cam") == nil)
            #expect(report.failed(.append, Self.full) == nil)
            report.keptEventInMemory()
        }
        #expect(report.succeeded(.append, directory: "/s/outbox/n-cam") == "outbox /s/outbox/n-cam is written again; 30 events kept in memory meanwhile")
        #expect(report.succeeded(.append, directory: "/s/outbox/n-cam") == nil)
        report.keptEventInMemory()
        #expect(report.keptInMemory == 0, "counted only while the trouble lasts")
    }

    @Test func aFailedSyncEndsOnlyWithASync() {
        var report = OutboxTroubleReport()
        #expect(report.failed(.sync, .cannotWrite(path: "/s/outbox/n-cam/segment-0000000001.log", Errno(rawValue: EIO))) != nil)
        #expect(report.succeeded(.append, directory: "/s/outbox/n-cam") == nil)
        #expect(report.succeeded(.sync, directory: "/s/outbox/n-cam") == "outbox /s/outbox/n-cam is written again; 0 events kept in memory meanwhile")
        #expect(report.failing == nil)
    }

    @Test func aFailedDoneMarkEndsWithAnAppend() {
        var report = OutboxTroubleReport()
        #expect(report.failed(.other, Self.full) != nil)
        #expect(report.failed(.append, Self.full) == nil)
        #expect(report.succeeded(.sync, directory: "/s/outbox/n-cam") == nil)
        #expect(report.succeeded(.append, directory: "/s/outbox/n-cam") != nil)
    }
}
