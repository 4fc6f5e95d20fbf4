import Dispatch
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Lookout
import NIOCore
import ServiceLifecycle
import Synchronization

/// Why the web server could not start.
public enum WebServerError: Error, CustomStringConvertible {
    case cannotListen(address: WebServerAddress, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        }
    }
}

/// The web view and API of one pipeline (`--http`), served by Hummingbird:
///
/// - `/`: the web page (`WebPage`);
/// - `/api/stream.mjpeg` (`?boxes=1`): the live picture as multipart MJPEG, at most `previewRate`
///   pictures a second;
/// - `/api/latest.jpg` (`?boxes=1`, `?h=HEIGHT`): the newest frame;
/// - `/api/events`: Server-Sent Events, each line standard output writes, and a heartbeat;
/// - `/api/status`: the statistics snapshot as JSON, with the newest objects and events;
/// - `/metrics`: Prometheus text exposition;
/// - `/healthz`: 200 while frames arrive (or a file was read to its end), 503 while the camera is lost;
/// - `/snapshots/NAME`: a snapshot in the snapshot directory, by its exact name;
/// - `/api/recordings`: the clips in the recording directory, newest first (JSON);
/// - `/recordings/NAME`: a clip, by its exact name, as a download.
///
/// It adds a `PhotoOutput` to the pipeline's session and an event sink to the pipeline. With
/// nobody connected its cost is one photo a second (see `PreviewBroadcaster`).
public final class WebServer: StatisticsReporting, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var address: WebServerAddress
        /// Required of every request but `/healthz` (bearer token, or basic-auth password).
        public var token: [UInt8]?
        /// Pictures a second per viewer of the MJPEG stream, at most.
        public var previewRate = 5.0
        /// Where `/snapshots/NAME` reads from.
        public var snapshotDirectory: String?
        /// Where `/api/recordings` and `/recordings/NAME` read from.
        public var recordingDirectory: String?
        /// Connections open at once; more wait in the listen backlog.
        public var maximumConnections = 64

        public init(address: WebServerAddress) {
            self.address = address
        }
    }

    public let configuration: Configuration
    private let pipeline: DetectionPipeline
    private let events = EventStream()
    private let preview: PreviewBroadcaster
    private let metrics = MetricsExporter()
    private let executor = DispatchTaskExecutor()
    private let requestCount = Atomic<Int>(0)
    private let running = Locked<(task: Task<Void, Never>?, group: ServiceGroup?, port: Int?, failure: String?)>((nil, nil, nil, nil))

    /// Joins `pipeline` (a photo output in its session, an event sink, a statistics reporter).
    /// Call before the pipeline runs.
    public init(pipeline: DetectionPipeline, configuration: Configuration) throws(CaptureError) {
        self.configuration = configuration
        self.pipeline = pipeline
        let photoOutput = PhotoOutput()
        try pipeline.session.addOutput(photoOutput)
        preview = PreviewBroadcaster(photoOutput: photoOutput, previewRate: configuration.previewRate)
        pipeline.addSink(events)
        pipeline.addReporter(self)
    }

    /// The port listened on (the one asked for, or the system's pick for port 0).
    public var port: Int? { running.withLock { $0.port } }

    /// Starts listening; returns once the port is open, or throws why it could not be.
    public func start() throws(WebServerError) {
        let bound = DispatchSemaphore(value: 0)
        let router = makeRouter()
        var logger = Logger(label: "lookout.http")
        logger.logLevel = .critical
        let address = configuration.address
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                idleTimeout: .seconds(60),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: 8192, maxHeaderListSize: 16384, maxHeaderFieldCount: 64))),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "Lookout",
                                 availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { [running] channel in
                running.withLock { $0.port = channel.localAddress?.port }
                bound.signal()
            },
            logger: logger)
        // Run in a service group of its own, so that stopping is a graceful shutdown: cancelling
        // the server's task instead leaves NIO writers unfinished, which NIO traps on.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // Child tasks (a connection each) inherit the executor preference.
        let task = Task(executorPreference: executor) { [running] in
            do {
                try await group.run()
            } catch {
                // A bind failure is NIO's IOError: say it in the system's words.
                let reason = (error as? IOError).map { Errno(rawValue: $0.errnoCode).description } ?? "\(error)"
                running.withLock { if $0.port == nil { $0.failure = reason } }
            }
            bound.signal()
        }
        running.withLock {
            $0.task = task
            $0.group = group
        }
        bound.wait()
        if let failure = running.withLock({ $0.failure }) {
            throw .cannotListen(address: address, reason: failure)
        }
        preview.start()
    }

    /// Ends the streams, closes every connection and stops listening (waiting two seconds at most).
    public func stop() {
        preview.stop()
        events.finishAll()
        guard let (task, group) = running.withLock({ state in state.task.flatMap { task in state.group.map { (task, $0) } } })
        else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            await group.triggerGracefulShutdown()
            _ = await task.value
            done.signal()
        }
        _ = done.wait(timeout: .fromNow(seconds: 2))
    }

    public func report(into snapshot: inout StatisticsSnapshot) {
        var http = StatisticsSnapshot.HTTPStatistics()
        http.eventClients = events.clientCount
        http.requests = requestCount.load(ordering: .relaxed)
        http.slowClientsDisconnected = events.slowClientsDisconnected
        preview.report(into: &http)
        snapshot.http = http
    }

    // MARK: Routes

    private func makeRouter() -> Router<LookoutRequestContext> {
        let router = Router(context: LookoutRequestContext.self)
        if let token = configuration.token { router.add(middleware: TokenAuthentication(token: token)) }
        router.get("/") { [self] _, _ in
            counted(Self.response(.ok, type: "text/html; charset=utf-8", Array(WebPage.html.utf8)))
        }
        router.get("/api/status") { [self] _, _ in counted(status()) }
        router.get("/healthz") { [self] _, _ in counted(health()) }
        router.get("/metrics") { [self] _, _ in
            counted(Self.response(.ok, type: "text/plain; version=0.0.4; charset=utf-8", metrics.render(pipeline.statistics)))
        }
        router.get("/api/latest.jpg") { [self] request, _ in
            let boxes = request.uri.queryParameters.get("boxes").map { $0 == "1" || $0 == "true" } ?? false
            var height: Int?
            if let text = request.uri.queryParameters.get("h") {
                guard let value = Int(text), (16...8192).contains(value) else {
                    return counted(Self.message(.badRequest, "h must be a height from 16 to 8192"))
                }
                height = value
            }
            guard let jpeg = await preview.latestPicture(drawsBoxes: boxes, height: height) else {
                return counted(Self.message(.serviceUnavailable, "no frame yet"))
            }
            return counted(Self.response(.ok, type: "image/jpeg", jpeg))
        }
        router.get("/api/stream.mjpeg") { [self] request, context in
            let boxes = request.uri.queryParameters.get("boxes").map { $0 == "1" || $0 == "true" } ?? false
            return counted(stream(drawsBoxes: boxes, channel: context.channel))
        }
        router.get("/api/events") { [self] _, context in counted(eventStream(channel: context.channel)) }
        router.get("/snapshots/{name}") { [self] _, context in
            counted(snapshot(named: context.parameters.get("name") ?? ""))
        }
        router.get("/api/recordings") { [self] _, _ in counted(recordingList()) }
        router.get("/recordings/{name}") { [self] _, context in
            counted(recording(named: context.parameters.get("name") ?? ""))
        }
        return router
    }

    private func counted(_ response: Response) -> Response {
        requestCount.add(1, ordering: .relaxed)
        return response
    }

    /// Every answer: its type, and never cached (the picture and the numbers are live).
    private static func headers(type: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return headers
    }

    private static func response(_ status: HTTPResponse.Status, type: String, _ bytes: [UInt8]) -> Response {
        Response(status: status, headers: headers(type: type), body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A short answer in words: a refusal, or why there is nothing.
    private static func message(_ status: HTTPResponse.Status, _ text: String) -> Response {
        response(status, type: "text/plain; charset=utf-8", Array((text + "\n").utf8))
    }

    private func status() -> Response {
        var writer = JSONWriter(capacity: 8192)
        pipeline.statistics.write(kind: "status", into: &writer)
        writer.key("objects")
        writer.beginArray()
        var encoder = DetectionLineEncoder(source: pipeline.configuration.source)
        for object in pipeline.latestObjects { writer.value(encoded: encoder.encode(object)) }
        writer.endArray()
        writer.key("recent_events")
        writer.beginArray()
        for line in events.recentEvents { writer.value(encoded: line) }
        writer.endArray()
        writer.endObject()
        return Self.response(.ok, type: "application/json", writer.bytes + [0x0A])
    }

    private func health() -> Response {
        let input = pipeline.inputState
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("status"); writer.string(input.isHealthy ? "ok" : "unavailable")
        writer.key("input"); writer.string(input.rawValue)
        writer.endObject()
        return Self.response(input.isHealthy ? .ok : .serviceUnavailable, type: "application/json", writer.bytes + [0x0A])
    }

    private static let boundary = "lookout-frame"

    private func stream(drawsBoxes: Bool, channel: any Channel) -> Response {
        guard let (id, pictures) = preview.addViewer(drawsBoxes: drawsBoxes, channel: channel) else {
            return Self.message(.serviceUnavailable, "\(PreviewBroadcaster.maximumViewers) viewers already watch")
        }
        let preview = self.preview
        return Response(status: .ok, headers: Self.headers(type: "multipart/x-mixed-replace; boundary=\(Self.boundary)"),
                        body: ResponseBody { writer in
            defer { preview.removeViewer(id) }
            // Each part ends with the next boundary, so a browser shows a picture as soon as it is
            // whole, not when the next one starts.
            try await writer.write(ByteBuffer(string: "--\(Self.boundary)\r\n"))
            for await jpeg in pictures {
                var part = ByteBuffer()
                part.writeString("Content-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n")
                part.writeBytes(jpeg)
                part.writeString("\r\n--\(Self.boundary)\r\n")
                try await writer.write(part)
                preview.viewerTook(id)
            }
            try await writer.finish(nil)
        })
    }

    private func eventStream(channel: any Channel) -> Response {
        guard let (id, lines) = events.subscribe(channel: channel) else {
            return Self.message(.serviceUnavailable, "\(EventStream.maximumClients) event clients already connected")
        }
        let events = self.events
        return Response(status: .ok, headers: Self.headers(type: "text/event-stream"), body: ResponseBody { writer in
            defer { events.unsubscribe(id) }
            try await writer.write(ByteBuffer(string: ": lookout events\n\n"))
            for await line in lines {
                try await writer.write(Self.serverSentEvent(line))
            }
            try await writer.finish(nil)
        })
    }

    /// One line as an SSE event: `data: <line>` and a blank line; a heartbeat (empty) as a comment.
    /// A text line holding CR or LF (a code's payload) continues on more `data:` lines, which a
    /// client joins back with LF.
    static func serverSentEvent(_ line: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        guard !line.isEmpty else {
            buffer.writeString(": heartbeat\n\n")
            return buffer
        }
        let body = line.last == 0x0A ? line.dropLast() : line[...]
        for segment in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            for piece in segment.split(separator: 0x0D, omittingEmptySubsequences: false) {
                buffer.writeString("data: ")
                buffer.writeBytes(piece)
                buffer.writeString("\n")
            }
        }
        buffer.writeString("\n")
        return buffer
    }

    /// Clips listed by the web page, newest first: at most `listedRecordings`.
    static let listedRecordings = 50

    private func recordingList() -> Response {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.key("recordings")
        writer.beginArray()
        if let directory = configuration.recordingDirectory {
            for clip in RecordingRetention.clips(in: directory).reversed().prefix(Self.listedRecordings) {
                writer.beginObject()
                writer.key("file"); writer.string(clip.name)
                writer.key("bytes"); writer.integer(Int(clip.bytes))
                writer.key("modified"); writer.string(WallClockTime(seconds: Int64(clip.modified), nanoseconds: 0).rfc3339)
                writer.key("url"); writer.string("/recordings/" + clip.name)
                writer.endObject()
            }
        }
        writer.endArray()
        writer.endObject()
        return Self.response(.ok, type: "application/json", writer.bytes + [0x0A])
    }

    /// A clip as a download, streamed from the file (clips are megabytes, not kilobytes).
    private func recording(named name: String) -> Response {
        let notFound = Self.message(.notFound, "no such recording")
        // Only names the recorder makes: no slash, no dot-dot.
        guard let directory = configuration.recordingDirectory, RecordingFileName.isRecording(name),
              let handle = FileHandle(forReadingAtPath: directory + "/" + name) else { return notFound }
        var headers = Self.headers(type: "video/x-matroska")
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: 0)
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { try? handle.close() }
            // The size announced, even of a clip still being written.
            var remaining = Int(size)
            while remaining > 0, let chunk = try handle.read(upToCount: min(remaining, 256 * 1024)), !chunk.isEmpty {
                remaining -= chunk.count
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        })
    }

    private func snapshot(named name: String) -> Response {
        let notFound = Self.message(.notFound, "no such snapshot")
        // Only names the writer makes: no slash, no dot-dot, nothing but what it writes.
        guard let directory = configuration.snapshotDirectory, SnapshotFileName.isServable(name),
              let data = FileManager.default.contents(atPath: directory + "/" + name) else { return notFound }
        return Self.response(.ok, type: "image/jpeg", Array(data))
    }
}
