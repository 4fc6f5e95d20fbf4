#if canImport(Glibc)
import Glibc
#endif

/// A camera connection's events on disk until the broker has them: append-only segment files in
/// a folder of its own in the state directory's outbox (`OutboxDirectory`), locked (flock(2))
/// while open so that two openers never share it. Every name in it is opened relative to the
/// folder's descriptor, never through a link.
///
/// Each event gets the next sequence, never given before in this directory (not after everything
/// was delivered and the files deleted, nor after a torn write); "done through S" marks record
/// what the broker acknowledged or the bounds dropped. Records are written as they come (one
/// write(2) each: a killed process loses nothing the kernel has) and synced in batches. Past the
/// size or age bound the oldest events are dropped, and counted. Opening reads the segments back:
/// a torn last record is cut off with a warning, damage elsewhere loses only what cannot be read
/// (`OutboxRecovery`).
///
/// Reopening (every reload and restart) goes on in the newest segment while it holds events not
/// done and has room, and only the segment appended to stays open: an older one is opened again
/// (never through a link) to read an event back, one at a time. Files and descriptors stay
/// bounded however many times it is reopened: the files by what its bytes need, not one more per
/// opening; the descriptors at the folder, the lock, the segment appended to and one read back.
///
/// Not thread-safe: its owner calls it from one queue.
package final class OutboxJournal {
    /// An event read back from the journal.
    package struct Event: Sendable, Equatable {
        package var sequence: UInt64
        /// Milliseconds since 1970 when it was made.
        package var wallTime: Int64
        package var topic: String
        package var payload: [UInt8]
    }

    /// An event not done, and where its record is (`OutboxRecovery` makes them when opening).
    struct Entry {
        var sequence: UInt64
        var wallTime: Int64
        var segment: Int
        var offset: Int64
        var length: Int
        var acknowledged = false
    }

    /// Its folder's path, for messages.
    package let directory: String
    package let limits: OutboxLimits
    /// The state directory's outbox, held (and with it the state directory's lock) while open.
    package let outbox: OutboxDirectory
    private let folder: DirectoryHandle
    private var lock: FileDescriptor?
    /// Oldest first; the last is the one appended to.
    private var segments: [OutboxSegment] = []
    /// Events after the done mark, in sequence order, from `head` on.
    private var pending: [Entry] = []
    private var head = 0
    /// The sequence the next event gets.
    package private(set) var nextSequence: UInt64 = 1
    /// Every event up to this one is done (acknowledged or dropped); 0: none yet.
    package private(set) var done: UInt64 = 0
    /// Events dropped since it was opened: past a bound, or lost to damage found when opening.
    package private(set) var dropped = 0
    /// Why events were dropped last ("full (67108864 bytes)", "older than 604800 s"), for a warning.
    package private(set) var lastDropCause = ""
    /// Records written since the last fsync.
    package private(set) var unsynced = 0
    private let clock: () -> Int64
    private let warn: (String) -> Void
    /// The kernel's boot ID: a journal not closed cleanly under another boot may have lost its
    /// unsynced tail, and with it numbers already given.
    private let boot: String
    /// Sequences up to this may be given: a synced reservation says so.
    private var reservedThrough: UInt64 = 0
    /// Sequences reserved at a time: one fsync(2) per this many events.
    static let reservation: UInt64 = 1024

    /// This boot's ID (/proc/sys/kernel/random/boot_id), or "" where there is none.
    package static func currentBoot() -> String {
        let descriptor = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { Glibc.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 64) }
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 > 0x20 }, as: UTF8.self)
    }

    /// Milliseconds since 1970, the clock the age bound goes by.
    package static func wallMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Opens (creating it, 0700) the journal in the folder `name` of `outbox`, reads what it
    /// holds, and goes on in its newest segment or begins a new one (`begin()`). `warn` hears
    /// what was damaged and what the bounds drop.
    package init(in outbox: OutboxDirectory, name: String, limits: OutboxLimits = OutboxLimits(),
                clock: @escaping () -> Int64 = OutboxJournal.wallMilliseconds,
                boot: String = OutboxJournal.currentBoot(), warn: @escaping (String) -> Void) throws(OutboxError) {
        self.outbox = outbox
        folder = try outbox.journalFolder(named: name)
        directory = folder.path
        self.limits = limits
        self.clock = clock
        self.boot = boot
        self.warn = warn
        let path = folder.path
        lock = try OutboxDirectory.lockFile(in: folder) { OutboxError.inUse(directory: path) }
        let recovered = try OutboxRecovery(folder: folder, boot: boot, warn: warn)
        segments = recovered.segments
        pending = recovered.pending
        nextSequence = recovered.nextSequence
        done = recovered.done
        dropped = recovered.dropped
        lastDropCause = recovered.lastDropCause
        try begin()
        try makeRoom(0) // the bound may have shrunk since
        try writeOwedMark()
        try dropExpired()
    }

    deinit {
        close()
    }

    /// Events not done yet: waiting, or sent and not acknowledged.
    package var pendingCount: Int { pending.count - head }

    /// Bytes in the journal's segment files.
    package var bytes: Int64 { segments.reduce(0) { $0 + $1.bytes } }

    /// Writes an event whose payload `payload` makes from its sequence; returns the sequence, or
    /// nil when the event alone is larger than half the size bound (dropped, counted).
    package func append(topic: String, payload: (UInt64) -> [UInt8]) throws(OutboxError) -> UInt64? {
        try dropExpired()
        let sequence = nextSequence
        if sequence > reservedThrough {
            let through = sequence + Self.reservation - 1
            _ = try write(Self.reserveBytes(boot)) { OutboxRecord.reserve(through: through, boot: boot).encoded() }
            try sync()
            reservedThrough = through
        }
        let wallTime = clock()
        let record = OutboxRecord.event(sequence: sequence, wallTime: wallTime, topic: topic, payload: payload(sequence)).encoded()
        guard Int64(record.count) <= limits.maximumBytes / 2 else {
            dropped += 1
            lastDropCause = "an event of \(record.count) bytes is over half its bound"
            return nil
        }
        let offset = try write(record.count) { record }
        pending.append(Entry(sequence: sequence, wallTime: wallTime, segment: active.number, offset: offset, length: record.count))
        active.lastEventSequence = sequence
        nextSequence += 1
        try syncIfBatchFull()
        try writeOwedMark()
        return sequence
    }

    /// The first event not done with a sequence after `sequence`, read from its file.
    package func event(after sequence: UInt64) -> Event? {
        var index = firstIndex(after: sequence)
        while index < pending.count {
            let entry = pending[index]
            var bytes: [UInt8]?
            if let segment = segments.first(where: { $0.number == entry.segment }) {
                do throws(Errno) { bytes = try record(of: entry, in: segment) } catch {
                    // Gone (deleted, replaced by a link or another kind of file) loses its events;
                    // anything else (no descriptor free now) keeps them for the next look.
                    guard [ENOENT, ELOOP, EINVAL].contains(error.rawValue) else { return nil }
                }
            }
            if let bytes, case (.event(let sequence, let wallTime, let topic, let payload), _)? = OutboxRecord.decode(bytes, at: 0) {
                return Event(sequence: sequence, wallTime: wallTime, topic: topic, payload: payload)
            }
            // Written whole and gone since (the disk): nothing to send; done as dropped, and the
            // done mark moves past it (else it would hold every later event back for ever).
            warn("outbox \(directory): event \(entry.sequence) cannot be read back; it is lost")
            if !pending[index].acknowledged {
                pending[index].acknowledged = true
                dropped += 1
                lastDropCause = "unreadable"
                try? advanceDone()
                index = firstIndex(after: entry.sequence)
                continue
            }
            index += 1
        }
        return nil
    }

    /// Events not done with a sequence after `sequence`.
    package func count(after sequence: UInt64) -> Int {
        pending.count - firstIndex(after: sequence)
    }

    /// The broker acknowledged the event `sequence`: the done mark moves past every event
    /// acknowledged or dropped without a gap, and segments wholly done are deleted.
    package func acknowledge(_ sequence: UInt64) throws(OutboxError) {
        guard sequence > done else { return }
        let index = firstIndex(after: sequence - 1)
        guard index < pending.count, pending[index].sequence == sequence else { return } // dropped meanwhile
        pending[index].acknowledged = true
        if pending[head].acknowledged { try advanceDone() }
    }

    /// Drops the events older than the age bound (the oldest first), counted.
    package func dropExpired() throws(OutboxError) {
        let cutoff = clock() - Int64(limits.maximumAge * 1000)
        let before = head
        var droppedNow = 0
        while head < pending.count, pending[head].wallTime < cutoff {
            if !pending[head].acknowledged { droppedNow += 1 }
            head += 1
        }
        guard head != before else { return }
        dropped += droppedNow
        if droppedNow > 0 { lastDropCause = "older than \(Int(limits.maximumAge)) s" }
        try advanceDone()
    }

    /// fsync(2)s what was written since the last.
    package func sync() throws(OutboxError) {
        guard unsynced > 0 else { return }
        unsynced = 0
        try active.sync()
    }

    /// Syncs and releases the files and the lock; what is not done stays for the next opening.
    package func close() {
        guard lock != nil else { return }
        // An opening that failed before its first segment has nothing to write to.
        if !segments.isEmpty {
            _ = try? write(Self.closedBytes) { OutboxRecord.closed(nextSequence: nextSequence).encoded() }
            try? sync()
        }
        segments.removeAll()
        lock = nil
    }

    // MARK: Writing

    private var active: OutboxSegment { segments[segments.count - 1] }
    /// The done mark moved without a record saying so (segments dropped to make room).
    private var markOwed = false
    private static let startRecordBytes = OutboxRecord.start(nextSequence: 0, done: 0).encoded().count
    private static let markBytes = OutboxRecord.done(sequence: 0).encoded().count
    private static let closedBytes = OutboxRecord.closed(nextSequence: 0).encoded().count
    private static func reserveBytes(_ boot: String) -> Int { OutboxRecord.reserve(through: 0, boot: boot).encoded().count }

    /// Makes room for `size` bytes (a new segment past the segment size; the oldest segments
    /// dropped past the size bound), then appends what `record` makes; returns its offset.
    private func write(_ size: Int, _ record: () -> [UInt8]) throws(OutboxError) -> Int64 {
        let rotating = active.bytes + Int64(size) > limits.segmentBytes && active.bytes > Int64(Self.startRecordBytes + Self.reserveBytes(boot))
        try makeRoom(Int64(size) + (rotating ? Int64(Self.startRecordBytes + Self.reserveBytes(boot)) : 0))
        if rotating { try rotate() }
        try makeRoom(Int64(size))
        let offset = active.bytes
        try active.append(record())
        unsynced += 1
        return offset
    }

    private func makeRoom(_ size: Int64) throws(OutboxError) {
        while bytes + size > limits.maximumBytes, segments.count > 1 { try dropOldestSegment() }
    }

    /// Deletes the oldest segment with its events, counted as dropped.
    private func dropOldestSegment() throws(OutboxError) {
        let oldest = segments[0]
        var droppedNow = 0
        while head < pending.count, pending[head].segment == oldest.number {
            if !pending[head].acknowledged { droppedNow += 1 }
            head += 1
        }
        try oldest.remove()
        segments.removeFirst()
        dropped += droppedNow
        if let last = oldest.lastEventSequence, last > done { done = last }
        advanceDoneInMemory()
        markOwed = true
        if droppedNow > 0 { lastDropCause = "full (\(limits.maximumBytes) bytes)" }
    }

    /// At opening: goes on in the newest segment (recovery cut any torn tail) when it holds events
    /// not done and has room for the start record and a reservation, else begins a new one (and
    /// the segments wholly done go): reopening adds neither a file nor a descriptor. The start
    /// record keeps what recovery found (the next sequence past a torn or unsynced one, the done
    /// mark) should this opening end uncleanly too.
    private func begin() throws(OutboxError) {
        let start = OutboxRecord.start(nextSequence: nextSequence, done: done).encoded()
        guard let newest = segments.last, (newest.lastEventSequence ?? 0) > done,
              newest.bytes + Int64(start.count + Self.reserveBytes(boot)) <= limits.segmentBytes else { return try rotate() }
        try newest.append(start)
        try newest.sync()
        try deleteFinishedSegments()
    }

    /// Closes the segment appended to (synced, its descriptor released) and begins the next with
    /// a start record.
    private func rotate() throws(OutboxError) {
        let previous = segments.last
        try previous?.sync()
        let number = (previous?.number ?? 0) + 1
        let segment = try OutboxSegment(number: number, in: folder, creating: true)
        previous?.release() // opened again, read-only, when one of its events is read back
        segments.append(segment)
        try segment.append(OutboxRecord.start(nextSequence: nextSequence, done: done).encoded())
        // The reservation goes on with the newest segment: older ones may be deleted.
        if reservedThrough > 0 { try segment.append(OutboxRecord.reserve(through: reservedThrough, boot: boot).encoded()) }
        try segment.sync()
        try deleteFinishedSegments()
        do throws(Errno) { try folder.sync() } catch { throw .cannotWrite(path: directory, error) }
    }

    private func advanceDoneInMemory() {
        while head < pending.count, pending[head].acknowledged { head += 1 }
        let through = head < pending.count ? pending[head].sequence - 1 : nextSequence - 1
        if through > done { done = through }
        if head > 1024, head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        }
    }

    /// Moves the done mark as far as it goes and records it.
    private func advanceDone() throws(OutboxError) {
        let before = done
        advanceDoneInMemory()
        if done != before { markOwed = true }
        try writeOwedMark()
    }

    private func writeOwedMark() throws(OutboxError) {
        guard markOwed else { return }
        markOwed = false
        _ = try write(Self.markBytes) { OutboxRecord.done(sequence: done).encoded() }
        try deleteFinishedSegments()
        try syncIfBatchFull()
    }

    private func syncIfBatchFull() throws(OutboxError) {
        if unsynced >= limits.syncRecords { try sync() }
    }

    /// Deletes the segments, but the one appended to, whose events are all done.
    private func deleteFinishedSegments() throws(OutboxError) {
        var index = 0
        while index < segments.count - 1 {
            if (segments[index].lastEventSequence ?? 0) <= done {
                try segments[index].remove()
                segments.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// The older segment read back from last: the one besides the segment appended to that holds
    /// a descriptor, released when another is read.
    private var reading: Int?

    /// `entry`'s record, from `segment`.
    private func record(of entry: Entry, in segment: OutboxSegment) throws(Errno) -> [UInt8]? {
        if segment !== active, reading != segment.number {
            if let reading, let previous = segments.first(where: { $0.number == reading }), previous !== active { previous.release() }
            reading = segment.number
        }
        return try segment.read(offset: entry.offset, length: entry.length)
    }

    /// The index in `pending` of the first event with a sequence after `sequence`.
    private func firstIndex(after sequence: UInt64) -> Int {
        var low = head, high = pending.count
        while low < high {
            let middle = (low + high) / 2
            if pending[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
