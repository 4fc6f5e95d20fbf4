/// What a publisher says of its outbox's disk trouble (a full disk, an I/O error): one warning
/// when it starts, one notice when the outbox works again with the number of events kept in
/// memory meanwhile, and nothing per event in between. Only the kind of work that failed ends it:
/// an event appended after a failed write, a sync after a failed sync (a call with nothing to
/// write, as a done mark not owed, proves nothing).
struct OutboxTroubleReport {
    /// The work a call on the journal did.
    enum Operation {
        /// An event appended (every call writes).
        case append
        /// Records synced.
        case sync
        /// A done mark or expiry, that writes only sometimes.
        case other
    }

    /// The work that failed, while the trouble lasts.
    private(set) var failing: Operation?
    /// Events kept in memory since it started.
    private(set) var keptInMemory = 0

    /// The warning to say when `error` starts the trouble; nil while it lasts.
    mutating func failed(_ operation: Operation, _ error: OutboxError) -> String? {
        guard failing == nil else { return nil }
        failing = operation
        keptInMemory = 0
        return "\(error); events wait in memory until the outbox can be written again (lost if Lookout stops before they are delivered)"
    }

    /// An event went to memory instead of the outbox.
    mutating func keptEventInMemory() {
        if failing != nil { keptInMemory += 1 }
    }

    /// The notice to say when `operation` succeeding in the outbox `directory` ends the trouble;
    /// nil otherwise.
    mutating func succeeded(_ operation: Operation, directory: String) -> String? {
        guard let failing, operation == .sync ? failing == .sync : operation == .append && failing != .sync else { return nil }
        self.failing = nil
        let kept = keptInMemory
        keptInMemory = 0
        return "outbox \(directory) is written again; \(kept) event\(kept == 1 ? "" : "s") kept in memory meanwhile"
    }
}
