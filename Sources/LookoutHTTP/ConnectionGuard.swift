import NIOCore
import NIOHTTP1

/// Keeps one HTTP/1 connection within `ConnectionLimits`. It sits between NIO's HTTP decoder and
/// Hummingbird (it sees HTTP/1 heads with their version), with `RequestStartWatcher` before the
/// decoder telling it when a request's first byte arrives:
///
/// - registers the connection (`ConnectionRegistry`), closing those the registry evicts, or this
///   one when it is refused;
/// - closes a connection whose request head is not complete `requestHeadTimeout` after the
///   connection opened or the request's first byte, or that is idle `keepAliveTimeout` between
///   requests (a slow or silent client cannot hold a connection; a streamed answer can);
/// - answers CONNECT with 405, a body over `maximumBodyBytes` with 413 and a request NIO cannot
///   parse with 400 (431 for headers over the bound) itself, in words, and closes;
/// - closes after the answer when the client did not ask to keep the connection (HTTP/1.0
///   without keep-alive, `Connection: close`).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Phase {
        /// Between requests (or before the first), since this time.
        case waiting(since: NIODeadline)
        /// A request's first bytes arrived at this time; its head has not.
        case readingHead(since: NIODeadline)
        /// Requests whose head arrived and whose answer has not ended.
        case answering(requests: Int)
    }

    private let registry: ConnectionRegistry<any Channel>
    private var limits: ConnectionLimits { registry.limits }
    private var id: Int?
    private var phase: Phase = .waiting(since: .now())
    private var isFirstRequest = true
    private var closesAfterAnswer = false
    /// The request being refused: its body and end are dropped.
    private var discardsRequest = false
    private var bodyBytes = 0
    private var check: RepeatedTask?

    init(registry: ConnectionRegistry<any Channel>) {
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { register(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        register(context: context)
        context.fireChannelActive()
    }

    private func register(context: ChannelHandlerContext) {
        guard check == nil, id == nil else { return }
        let now = NIODeadline.now()
        phase = .waiting(since: now)
        let client = context.remoteAddress?.ipAddress ?? "unknown"
        let admission = registry.admit(client: client, handle: context.channel, now: now.uptimeNanoseconds)
        for channel in admission.evicted { channel.close(promise: nil) }
        guard let id = admission.id else {
            context.close(promise: nil)
            return
        }
        self.id = id
        // A second's precision is plenty for deadlines of seconds.
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            loopBound.value.closeWhenLate(context: contextBound.value)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        if let id { registry.remove(id) }
        context.fireChannelInactive()
    }

    /// A request's first byte (from `RequestStartWatcher`): its head's deadline starts.
    func requestBytesArrived() {
        if case .waiting = phase, !isFirstRequest { phase = .readingHead(since: .now()) }
    }

    private func closeWhenLate(context: ChannelHandlerContext) {
        let deadline: NIODeadline
        switch phase {
        case .answering: return
        case .waiting(let since):
            // A new connection's head is due as a request's; between requests, the keep-alive wait.
            deadline = since + TimeAmount(isFirstRequest ? limits.requestHeadTimeout : limits.keepAliveTimeout)
        case .readingHead(let since):
            deadline = since + TimeAmount(limits.requestHeadTimeout)
        }
        if NIODeadline.now() >= deadline { context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            isFirstRequest = false
            if head.method == .CONNECT {
                refuse(context: context, status: .methodNotAllowed, "CONNECT is not served here")
                return
            }
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maximumBodyBytes {
                refuse(context: context, status: .payloadTooLarge, "no request takes a body over \(limits.maximumBodyBytes) bytes")
                return
            }
            bodyBytes = 0
            if !head.isKeepAlive { closesAfterAnswer = true }
            switch phase {
            case .answering(let requests): phase = .answering(requests: requests + 1)
            case .waiting, .readingHead:
                phase = .answering(requests: 1)
                if let id { registry.setAnswering(id, true, now: NIODeadline.now().uptimeNanoseconds) }
            }
        case .body(let bytes):
            guard !discardsRequest else { return }
            bodyBytes += bytes.readableBytes
            if bodyBytes > limits.maximumBodyBytes {
                // A chunked body past the bound: the answer may have begun, so only closing is safe.
                discardsRequest = true
                context.close(promise: nil)
                return
            }
        case .end:
            guard !discardsRequest else { return }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), case .answering(let requests) = phase else {
            context.write(data, promise: promise)
            return
        }
        if requests > 1 {
            phase = .answering(requests: requests - 1)
        } else {
            let now = NIODeadline.now()
            phase = .waiting(since: now)
            if let id { registry.setAnswering(id, false, now: now.uptimeNanoseconds) }
        }
        guard closesAfterAnswer, requests == 1 else {
            context.write(data, promise: promise)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        if let promise { written.futureResult.cascade(to: promise) }
        context.write(data, promise: written)
    }

    /// A request NIO's parser refused (a malformed line or header): answered in words, as every
    /// refusal is, rather than with Hummingbird's empty 400.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        isFirstRequest = false
        refuse(context: context, status: parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest,
               "a malformed request (\(parserError)) is not served")
    }

    /// Answers the request that just arrived itself, then closes. An answer already under way
    /// (a pipelined request before it) cannot be interleaved with: then it only closes.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, _ reason: String) {
        discardsRequest = true
        guard case .answering = phase else {
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
            headers.add(name: "content-length", value: String(reason.utf8.count + 1))
            headers.add(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reason + "\n")))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
            return
        }
        context.close(promise: nil)
    }
}

/// Sits before the HTTP decoder and tells `ConnectionGuard` when bytes arrive, so that a request's
/// head is timed from its first byte rather than from the end of the previous answer.
final class RequestStartWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connectionGuard: ConnectionGuard

    init(connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connectionGuard.requestBytesArrived()
        context.fireChannelRead(data)
    }
}
