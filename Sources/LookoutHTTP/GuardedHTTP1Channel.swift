import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with Lookout's `ConnectionGuard` in its pipeline: the guard
/// needs HTTP/1 heads (version, CONNECT) before Hummingbird converts them, which Hummingbird's own
/// extra-handler slot (after the conversion) does not give.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let registry: ConnectionRegistry<any Channel>

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let connectionGuard = ConnectionGuard(registry: registry)
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(connectionGuard, position: .before(codec))
            try operations.addHandler(RequestStartWatcher(connectionGuard: connectionGuard), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
