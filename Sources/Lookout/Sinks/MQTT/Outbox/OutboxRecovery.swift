/// What an outbox journal's segments hold, read back when it is opened: the events not done, the
/// done mark, the next sequence, and what was lost to damage. A torn last record is cut off with a
/// warning; damage elsewhere loses only what cannot be read.
struct OutboxRecovery {
    /// Every segment, oldest first; only the newest open (to append), the others released.
    var segments: [OutboxSegment] = []
    /// The events after the done mark, in sequence order.
    var pending: [OutboxJournal.Entry] = []
    var nextSequence: UInt64 = 1
    var done: UInt64 = 0
    /// Events lost to damage, and the cause for a warning.
    var dropped = 0
    var lastDropCause = ""

    /// Reads every segment in `folder` back; `boot` is this boot's ID (a journal not closed under
    /// another boot skips past its reservation), `warn` hears what was damaged.
    init(folder: DirectoryHandle, boot: String, warn: (String) -> Void) throws(OutboxError) {
        let directory = folder.path
        let numbers = try Self.segmentNumbers(folder)
        var entries: [OutboxJournal.Entry] = []
        var highest: UInt64 = 0
        var tornUnnumbered = false
        var reservation: (through: UInt64, boot: String)?
        var closedCleanly = true
        for (position, number) in numbers.enumerated() {
            let segment = try OutboxSegment(number: number, in: folder, creating: false)
            let contents = try segment.readAll()
            let scan = OutboxRecord.scan(contents)
            for (record, offset, length) in scan.records {
                switch record {
                case .event(let sequence, let wallTime, _, _):
                    entries.append(OutboxJournal.Entry(sequence: sequence, wallTime: wallTime, segment: number, offset: Int64(offset), length: length))
                    segment.lastEventSequence = max(segment.lastEventSequence ?? 0, sequence)
                    highest = max(highest, sequence)
                case .done(let sequence):
                    done = max(done, sequence)
                case .start(let next, let mark):
                    nextSequence = max(nextSequence, next)
                    done = max(done, mark)
                case .reserve(let through, let reservedBoot):
                    reservation = (through, reservedBoot)
                case .closed(let next):
                    nextSequence = max(nextSequence, next)
                }
                closedCleanly = if case .closed = record { true } else { false }
            }
            if let torn = scan.damagedSequence { highest = max(highest, torn) }
            var damaged = scan.damaged
            if position == numbers.count - 1, let last = damaged.last, last.offset + last.length == contents.count {
                // A torn last record: the process or the machine stopped while it was written.
                damaged.removeLast()
                try segment.truncate(to: Int64(scan.end))
                let torn = OutboxRecord.damagedEventSequence(contents, at: last.offset)
                // Its number may have gone out before the write was cut: never given again.
                tornUnnumbered = torn == nil
                let event = torn.map { $0 > done ? ", event \($0), lost" : "" } ?? ""
                if !event.isEmpty {
                    dropped += 1
                    lastDropCause = "damaged"
                }
                warn("outbox \(directory): cut off a torn last record (\(last.length) bytes\(event)) in \(segment.path); every earlier record is kept")
            }
            for stretch in damaged {
                // The events between the whole records either side of it.
                let before = Self.eventSequences(scan, before: stretch.offset).last ?? done
                let after = Self.eventSequences(scan, from: stretch.offset).first
                let lost = after.map { $0 > max(before, done) ? Int($0 - max(before, done)) - 1 : 0 } ?? 0
                dropped += lost
                if lost > 0 { lastDropCause = "damaged" }
                warn("outbox \(directory): \(stretch.length) bytes at offset \(stretch.offset) of \(segment.path) cannot be read; \(lost) event\(lost == 1 ? "" : "s") lost")
            }
            // One descriptor at a time, however many segments there are: the journal opens an
            // older one again when it reads an event back.
            if position < numbers.count - 1 { segment.release() }
            segments.append(segment)
        }
        nextSequence = max(nextSequence, highest + 1, done + 1) + (tornUnnumbered ? 1 : 0)
        if !closedCleanly, let reservation, reservation.boot != boot || boot.isEmpty, reservation.through >= nextSequence {
            // The machine stopped (a power cut, a crash) with the journal open: events given
            // numbers after the last sync may have gone out and been lost from the disk. Without
            // a boot ID to tell (systemd's ProcSubset=pid hides /proc/sys), any unclean close counts.
            warn("outbox \(directory): not closed before the machine restarted; event numbers go on from \(reservation.through + 1), past any that may have gone out unsynced")
            nextSequence = reservation.through + 1
        }
        entries.sort { $0.sequence < $1.sequence }
        pending = entries.filter { [done] in $0.sequence > done }
    }

    /// The segments' numbers, from their names in `folder`, in order.
    private static func segmentNumbers(_ folder: DirectoryHandle) throws(OutboxError) -> [Int] {
        do throws(Errno) {
            return try folder.names().compactMap(OutboxSegment.number(fromName:)).sorted()
        } catch {
            throw .cannotWrite(path: folder.path, error)
        }
    }

    private static func eventSequences(_ scan: OutboxRecord.Scan, before offset: Int) -> [UInt64] {
        scan.records.filter { $0.offset < offset }.compactMap { if case .event(let sequence, _, _, _) = $0.record { sequence } else { nil } }
    }

    private static func eventSequences(_ scan: OutboxRecord.Scan, from offset: Int) -> [UInt64] {
        scan.records.filter { $0.offset > offset }.compactMap { if case .event(let sequence, _, _, _) = $0.record { sequence } else { nil } }
    }
}
