extension MQTTEventPublisher {
    /// What a publisher delivered, dropped and holds.
    public struct Statistics: Sendable, Equatable {
        /// Messages the broker acknowledged.
        public var acknowledged = 0
        /// Events dropped because the queue was full, or past the outbox's bounds.
        public var dropped = 0
        /// Events and state not yet acknowledged.
        public var pending = 0
        /// Whether the broker connection is up now.
        public var connected = false
        /// The broker connected to now (its address without the password), nil while none is.
        public var broker: String?
        /// Events in the outbox not acknowledged yet (waiting, or sent), and its files' bytes.
        public var outboxPending = 0
        public var outboxBytes: Int64 = 0
        /// Events the outbox dropped past its size or age bound (or lost to damage on disk).
        public var outboxDropped = 0

        public init(acknowledged: Int = 0, dropped: Int = 0, pending: Int = 0, connected: Bool = false, broker: String? = nil,
                    outboxPending: Int = 0, outboxBytes: Int64 = 0, outboxDropped: Int = 0) {
            self.acknowledged = acknowledged
            self.dropped = dropped
            self.pending = pending
            self.connected = connected
            self.broker = broker
            self.outboxPending = outboxPending
            self.outboxBytes = outboxBytes
            self.outboxDropped = outboxDropped
        }
    }
}
