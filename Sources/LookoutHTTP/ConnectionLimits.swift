/// What one HTTP connection may hold of the server, and for how long. Idle and slow connections
/// cannot hold the server down: a request's head must arrive within `requestHeadTimeout`, an idle
/// keep-alive connection is closed after `keepAliveTimeout`, and a new client arriving while the
/// limits are held takes the place of the oldest connection that is not being answered.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once, all clients together.
    public var maximumConnections = 64
    /// Connections open at once from one client address: below the total, so that one client
    /// alone never fills the server.
    public var maximumConnectionsPerClient = 16
    /// From a connection's opening (or a request's first byte on a kept-alive connection) to the
    /// end of the request's head.
    public var requestHeadTimeout: Duration = .seconds(5)
    /// How long a kept-alive connection may wait between requests.
    public var keepAliveTimeout: Duration = .seconds(10)
    /// The largest request body (no route takes one): a bigger one is refused before it is read.
    public var maximumBodyBytes = 4096

    public init() {}
}
