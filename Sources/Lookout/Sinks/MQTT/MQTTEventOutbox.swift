import Logging

/// A camera's outbox as its publisher uses it, on the publisher's queue only: the journal, when
/// to fsync(2) it (within the sync interval of the first record written since the last; the
/// publisher's queue runs it), disk trouble said when it starts and when it ends (never per
/// event), and drops past its bounds warned of once per thousand.
final class MQTTEventOutbox {
    let journal: OutboxJournal
    private let logger: Logger
    private var trouble = OutboxTroubleReport()
    private var dropWarning = DropWarning(every: 1000)
    private var syncScheduled = false
    /// The highest sequence handed to libmosquitto: it sends its own in-flight messages again
    /// after a reconnect, so they are not handed over twice.
    private var handedThrough: UInt64
    /// Events handed over, by libmosquitto's message ID, until acknowledged.
    private var inFlight: [Int32: UInt64] = [:]

    /// The state directory's outbox for `configuration`, locked, and a camera's journal in it;
    /// nils without an outbox. Locked before the connection: a second process on the state
    /// directory is refused here, not after its connection (with the first's client ID) threw the
    /// first off.
    static func open(for configuration: MQTTConfiguration, logger: Logger) throws(MQTTError)
        -> (directory: OutboxDirectory?, outbox: MQTTEventOutbox?) {
        guard let settings = configuration.outbox else { return (nil, nil) }
        do throws(OutboxError) {
            let directory = try OutboxDirectory.prepare(stateDirectory: settings.stateDirectory)
            guard configuration.camera != nil else { return (directory, nil) }
            return (directory, try MQTTEventOutbox(in: directory, settings: settings, configuration: configuration, logger: logger))
        } catch {
            throw .outbox(error)
        }
    }

    /// Opens the camera's journal in `directory` (locked by the caller), saying when events wait
    /// in it from before.
    init(in directory: OutboxDirectory, settings: OutboxSettings, configuration: MQTTConfiguration,
         logger: Logger) throws(OutboxError) {
        journal = try OutboxJournal(in: directory, name: settings.folderName(clientID: configuration.clientID), limits: settings.limits) {
            [logger] in logger.warning("MQTT: \($0)")
        }
        self.logger = logger
        handedThrough = journal.done
        let pending = journal.pendingCount
        if pending > 0 {
            logger.notice("MQTT: \(pending) event\(pending == 1 ? "" : "s") of camera \(configuration.camera ?? "") waiting in \(journal.directory) from before; delivered first")
        }
    }

    /// Keeps `payload` as the next event; false when the journal could not write it (the caller
    /// then keeps it in memory, and says so with `keptInMemory()`).
    func append(topic: String, payload: [UInt8]) -> Bool {
        let droppedBefore = journal.dropped
        // Kept, or dropped past the bounds (counted): either way the outbox has dealt with it.
        var appended = false
        using(.append) { journal throws(OutboxError) in
            _ = try journal.append(topic: topic) { _ in payload }
            appended = true
        }
        if journal.dropped > droppedBefore, dropWarning.shouldSay(journal.dropped) {
            logger.warning("MQTT: outbox \(journal.directory) \(journal.lastDropCause); dropped the oldest events, \(journal.dropped) dropped so far")
        }
        return appended
    }

    /// An event was kept in memory because the journal could not write it.
    func keptInMemory() {
        trouble.keptEventInMemory()
    }

    /// Events not handed to libmosquitto yet.
    var waiting: Int { journal.count(after: handedThrough) }

    /// The next event to hand to libmosquitto, if any.
    func nextToHandOver() -> OutboxJournal.Event? { journal.event(after: handedThrough) }

    /// `event` was handed to libmosquitto as message `messageID`.
    func handedOver(_ event: OutboxJournal.Event, as messageID: Int32) {
        inFlight[messageID] = event.sequence
        handedThrough = event.sequence
    }

    /// Records the broker's acknowledgement of message `messageID`; true when it was an event of
    /// the outbox's (then written to the journal).
    func acknowledged(_ messageID: Int32) -> Bool {
        guard let sequence = inFlight.removeValue(forKey: messageID) else { return false }
        using { journal throws(OutboxError) in try journal.acknowledge(sequence) }
        return true
    }

    /// Runs `body`, doing `operation`'s work, on the journal; a disk error is not a stop: a warning
    /// when the trouble starts, a notice when it ends (`OutboxTroubleReport`), nothing per event.
    func using(_ operation: OutboxTroubleReport.Operation = .other, _ body: (OutboxJournal) throws(OutboxError) -> Void) {
        do throws(OutboxError) {
            try body(journal)
            if let notice = trouble.succeeded(operation, directory: journal.directory) { logger.notice("MQTT: \(notice)") }
        } catch {
            if let warning = trouble.failed(operation, error) { logger.warning("MQTT: \(warning)") }
        }
    }

    /// The seconds after which to call `sync()`, when records were written since the last sync
    /// and none is scheduled yet; nil otherwise.
    func syncToSchedule() -> Double? {
        guard journal.unsynced > 0, !syncScheduled else { return nil }
        syncScheduled = true
        return journal.limits.syncInterval
    }

    /// fsync(2)s the journal (scheduled by `syncToSchedule()`).
    func sync() {
        syncScheduled = false
        using(.sync) { journal throws(OutboxError) in try journal.sync() }
    }
}
