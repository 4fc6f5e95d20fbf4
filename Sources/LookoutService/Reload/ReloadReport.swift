extension Service {
    /// What a reload did.
    public struct ReloadReport: Sendable, Equatable {
        public var started: [String] = []
        public var restarted: [String] = []
        public var stopped: [String] = []
        public var unchanged: [String] = []
        /// The MQTT node, hooks and web server were rebuilt (a global section changed).
        public var rebuiltShared = false
        public init() {}
    }

    /// Reloads done and refused (an invalid file, a camera that could not be opened).
    public struct ReloadCounts: Sendable, Equatable {
        public var succeeded = 0
        public var failed = 0
        public init(succeeded: Int = 0, failed: Int = 0) {
            self.succeeded = succeeded
            self.failed = failed
        }
    }
}
