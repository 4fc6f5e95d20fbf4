import Dispatch
import Lookout
import NIOCore

/// The `/api/events` stream: every line standard output carries (detections or events, camera
/// lost and found), to each Server-Sent Events client, plus a heartbeat. Also keeps the latest
/// events for `/api/status` and the web page.
///
/// Each client has a bounded buffer (`clientBuffer` lines). A client that lets it fill is
/// disconnected, so a reader that stops never slows the pipeline or grows memory.
final class EventStream: EventSink, Sendable {
    /// Lines a client may lag behind before it is disconnected.
    static let clientBuffer = 512
    static let maximumClients = 32
    /// Events `/api/status` lists, newest last.
    static let recentEventCount = 20
    /// Seconds between heartbeats (an SSE comment line, which keeps proxies from closing the stream).
    static let heartbeatInterval = 15.0

    private struct Client {
        var continuation: AsyncStream<[UInt8]>.Continuation
        var channel: any Channel
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var recentEvents: [[UInt8]] = []
        var disconnected = 0
    }

    private let state = Locked(State())
    private let heartbeats = DispatchQueue(label: "lookout.http.heartbeat")
    /// Yielded to clients for a heartbeat: no line is empty.
    static let heartbeat: [UInt8] = []

    init() {
        scheduleHeartbeat()
    }

    private func scheduleHeartbeat() {
        heartbeats.asyncAfter(deadline: .fromNow(seconds: Self.heartbeatInterval)) { [weak self] in
            guard let self else { return }
            broadcast([Self.heartbeat])
            scheduleHeartbeat()
        }
    }

    /// A new client's stream of lines; nil when `maximumClients` are connected.
    func subscribe(channel: any Channel) -> (id: Int, lines: AsyncStream<[UInt8]>)? {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(Self.clientBuffer))
        let id: Int? = state.withLock { state in
            guard state.clients.count < Self.maximumClients else { return nil }
            state.nextID += 1
            state.clients[state.nextID] = Client(continuation: continuation, channel: channel)
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.clients.removeValue(forKey: id) }
    }

    var clientCount: Int { state.withLock { $0.clients.count } }
    var slowClientsDisconnected: Int { state.withLock { $0.disconnected } }

    /// The latest event lines, oldest first.
    var recentEvents: [[UInt8]] { state.withLock { $0.recentEvents } }

    // MARK: EventSink (pipeline queue)

    func consume(_ output: PipelineOutput) {
        if !output.events.isEmpty {
            state.withLock { state in
                state.recentEvents.append(contentsOf: output.events.map(\.line))
                if state.recentEvents.count > Self.recentEventCount {
                    state.recentEvents.removeFirst(state.recentEvents.count - Self.recentEventCount)
                }
            }
        }
        if !output.lines.isEmpty { broadcast(output.lines) }
    }

    private func broadcast(_ lines: [[UInt8]]) {
        let slow: [Client] = state.withLock { state in
            var slow: [Client] = []
            for (id, client) in state.clients {
                for line in lines {
                    if case .dropped = client.continuation.yield(line) {
                        slow.append(client)
                        state.clients.removeValue(forKey: id)
                        state.disconnected += 1
                        break
                    }
                }
            }
            return slow
        }
        for client in slow {
            client.continuation.finish()
            client.channel.close(promise: nil)
        }
    }

    /// Ends every stream (the server is stopping).
    func finishAll() {
        let clients = state.withLock { state -> [Client] in
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in clients { client.continuation.finish() }
    }
}
