/// How much an outbox keeps, and how often it reaches the disk.
public struct OutboxLimits: Sendable, Equatable {
    /// The journal's files never grow past this; past it the oldest events are dropped.
    public var maximumBytes: Int64 = 64 << 20
    /// Events older than this (by the wall clock when they were made) are dropped.
    public var maximumAge: Double = 7 * 86_400
    /// Records written since the last fsync(2) that make the next one happen at once.
    public var syncRecords = 64
    /// Seconds an unsynced record waits for its fsync(2), at most.
    public var syncInterval = 0.2

    public init(maximumBytes: Int64 = 64 << 20, maximumAge: Double = 7 * 86_400) {
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
    }

    /// A segment file is closed and a new one begun past this: an eighth of the bound, so
    /// dropping the oldest segment frees room without dropping most of the journal; at most
    /// 64 MiB, as an opening reads each segment whole.
    var segmentBytes: Int64 { min(64 << 20, max(4096, maximumBytes / 8)) }
}

/// Where a publisher keeps its outbox: the state directory and the bounds.
public struct OutboxSettings: Sendable, Equatable {
    /// The state directory; each camera connection's journal is `<stateDirectory>/outbox/<client ID>`.
    public var stateDirectory: String
    public var limits: OutboxLimits

    public init(stateDirectory: String, limits: OutboxLimits = OutboxLimits()) {
        self.stateDirectory = stateDirectory
        self.limits = limits
    }

    /// The name of the journal folder of the connection with `clientID` in the outbox: the ID as
    /// one path component (`%` and `/` percent-encoded, and a leading `.`, so it never names
    /// another folder).
    public func folderName(clientID: String) -> String {
        DirectoryHandle.entryName(for: clientID)
    }
}
