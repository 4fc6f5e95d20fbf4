import Synchronization

/// The web server's open connections, and which one gives way when a new client arrives at a
/// limit (`ConnectionLimits`): the one that has waited longest without being answered (idle
/// between requests, or still sending its request's head). A connection being answered (a
/// request in progress, a picture or event stream) is never pushed out; when every connection
/// is being answered, the new one is refused.
///
/// Generic over the handle that closes a connection (a NIO channel in the server, a number in
/// tests), so the policy can be tested on its own.
final class ConnectionRegistry<Handle: Sendable>: Sendable {
    struct Admission {
        /// The new connection's identity, or nil when it is refused (close it).
        var id: Int?
        /// Connections to close to make room.
        var evicted: [Handle]
    }

    private struct Entry {
        let id: Int
        let client: String
        let handle: Handle
        /// Nil while a request is answered; otherwise since when the connection waits.
        var waitingSince: UInt64?
    }

    let limits: ConnectionLimits
    private let state = Mutex<(nextID: Int, entries: [Entry])>((0, []))

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Connections open now.
    var count: Int { state.withLock { $0.entries.count } }

    /// A new connection from `client` (its address, without port) at `now` (monotonic nanoseconds).
    func admit(client: String, handle: Handle, now: UInt64) -> Admission {
        state.withLock { state in
            var evicted: [Handle] = []
            if state.entries.count(where: { $0.client == client }) >= limits.maximumConnectionsPerClient {
                guard let index = Self.longestWaiting(in: state.entries, client: client) else { return Admission(id: nil, evicted: []) }
                evicted.append(state.entries.remove(at: index).handle)
            }
            if state.entries.count >= limits.maximumConnections {
                guard let index = Self.longestWaiting(in: state.entries, client: nil) else { return Admission(id: nil, evicted: evicted) }
                evicted.append(state.entries.remove(at: index).handle)
            }
            state.nextID += 1
            state.entries.append(Entry(id: state.nextID, client: client, handle: handle, waitingSince: now))
            return Admission(id: state.nextID, evicted: evicted)
        }
    }

    /// A request of connection `id` is being answered (true), or the connection waits again.
    func setAnswering(_ id: Int, _ answering: Bool, now: UInt64) {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return }
            state.entries[index].waitingSince = answering ? nil : now
        }
    }

    /// Connection `id` closed (or was evicted: then nothing is left to do).
    func remove(_ id: Int) {
        state.withLock { state in state.entries.removeAll { $0.id == id } }
    }

    private static func longestWaiting(in entries: [Entry], client: String?) -> Int? {
        var best: (index: Int, since: UInt64)?
        for (index, entry) in entries.enumerated() {
            guard let since = entry.waitingSince, client == nil || entry.client == client else { continue }
            if let current = best, current.since <= since { continue }
            best = (index, since)
        }
        return best?.index
    }
}
