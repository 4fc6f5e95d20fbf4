import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Lookout
import NIOCore
import ServiceLifecycle
import Synchronization

/// The web view and API of one or more pipelines (cameras, `--http`), served by Hummingbird.
/// Every route but `/metrics` and `/healthz` (which cover all cameras) takes `?camera=NAME`; the
/// default is the first camera.
///
/// - `/`: the web page (`WebPage`);
/// - `/api/stream.mjpeg` (`?boxes=1`): the live picture as multipart MJPEG, at most `previewRate`
///   pictures a second;
/// - `/api/latest.jpg` (`?boxes=1`, `?h=HEIGHT`): the newest frame;
/// - `/api/events`: Server-Sent Events, each line standard output writes, and a heartbeat;
/// - `/api/status`: the camera's statistics snapshot as JSON, with its newest objects, the
///   newest events of all cameras, `cameras` (every camera's name and input state), and the
///   camera's `masks` and `zones` (`DetectionRegions`);
/// - `/metrics`: Prometheus text exposition, a `camera` label on each camera's series;
/// - `/healthz`: 200 while every camera's frames arrive (or its file was read to the end), 503
///   while one is lost; the body gives each camera's state;
/// - `/snapshots/NAME`: a snapshot in the snapshot directory, by its exact name;
/// - `/api/recordings`: the clips in the recording directory, newest first (JSON);
/// - `/recordings/NAME`: a clip, by its exact name, as a download.
///
/// Each camera it shows has a `PhotoOutput` in its session and the server's `eventSink` in its
/// pipeline, wired by whoever builds the cameras (`Service`). With nobody connected its cost is
/// one photo a second per camera (see `PreviewBroadcaster`).
public final class WebServer: StatisticsReporting, Sendable {
    /// A camera the server shows: its pipeline, and where its snapshots and clips are.
    public struct Camera: Sendable {
        public var pipeline: DetectionPipeline
        public var snapshotDirectory: Folder?
        public var recordingDirectory: Folder?

        public init(pipeline: DetectionPipeline, snapshotDirectory: Folder? = nil, recordingDirectory: Folder? = nil) {
            self.pipeline = pipeline
            self.snapshotDirectory = snapshotDirectory
            self.recordingDirectory = recordingDirectory
        }
    }

    /// A camera with its pictures.
    private struct Shown {
        var camera: Camera
        var preview: PreviewBroadcaster
        var name: String { camera.pipeline.configuration.camera }
    }

    public let configuration: Configuration
    /// The cameras shown, in order; replaced as a reload adds and removes cameras.
    private let shown = Locked<[Shown]>([])
    private var cameras: [Shown] { shown.withLock { $0 } }
    private let isServing = Atomic<Bool>(false)
    private let events = EventStream()
    private let metrics = MetricsExporter()
    private let executor = DispatchTaskExecutor()
    private let requestCount = Atomic<Int>(0)
    private let running = Locked<(task: Task<Void, Never>?, group: ServiceGroup?, port: Int?, failure: String?)>((nil, nil, nil, nil))

    /// A server showing no camera yet: `show(_:photoOutput:)` adds them. The service wires each
    /// camera: the photo output into its session, `eventSink` and the server (as a statistics
    /// reporter) into its pipeline.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Joins `pipeline` (a photo output in its session, an event sink, a statistics reporter),
    /// with the configuration's directories. Call before the pipeline runs.
    public convenience init(pipeline: DetectionPipeline, configuration: Configuration) throws(CaptureError) {
        self.init(configuration: configuration)
        let photoOutput = PhotoOutput()
        try pipeline.session.addOutput(photoOutput)
        pipeline.addSink(eventSink)
        pipeline.addReporter(self)
        show(Camera(pipeline: pipeline, snapshotDirectory: configuration.snapshotDirectory.map { Folder(path: $0) },
                    recordingDirectory: configuration.recordingDirectory.map { Folder(path: $0) }), photoOutput: photoOutput)
    }

    /// The sink each shown camera's pipeline hands its lines to (the event stream, `/api/events`).
    public var eventSink: any EventSink { events }

    /// Shows `camera`, whose session holds `photoOutput` (the live picture and `/api/latest.jpg`);
    /// a camera of the same name is replaced. Any time, before or while serving.
    public func show(_ camera: Camera, photoOutput: PhotoOutput) {
        let added = Shown(camera: camera, preview: PreviewBroadcaster(photoOutput: photoOutput, previewRate: configuration.previewRate))
        let replaced: Shown? = shown.withLock { list in
            if let index = list.firstIndex(where: { $0.name == added.name }) {
                let old = list[index]
                list[index] = added
                return old
            }
            list.append(added)
            return nil
        }
        replaced?.preview.stop()
        if isServing.load(ordering: .acquiring) { added.preview.start() }
    }

    /// Stops showing the camera named `name` (a reload removed it).
    public func remove(camera name: String) {
        let removed: Shown? = shown.withLock { list in
            guard let index = list.firstIndex(where: { $0.name == name }) else { return nil }
            return list.remove(at: index)
        }
        removed?.preview.stop()
    }

    /// The names of the cameras shown, in order.
    public var cameraNames: [String] { cameras.map(\.name) }

    /// The camera `?camera=` names (the first by default), or nil for an unknown name.
    private func camera(for request: Request) -> Shown? {
        let cameras = self.cameras
        guard let name = request.uri.queryParameters.get("camera"), !name.isEmpty else { return cameras.first }
        return cameras.first { $0.name == name }
    }

    private var unknownCamera: Response {
        Response.plainText(.notFound, cameras.isEmpty ? "no camera is running" : "no such camera")
    }

    /// The port listened on (the one asked for, or the system's pick for port 0).
    public var port: Int? { running.withLock { $0.port } }

    /// How a start ended: listening, the server's task over (a failure is in `running`), or no word in time.
    private enum StartOutcome: Sendable { case listening, ended, timedOut }

    /// Starts listening; returns once the port is open, or throws why it could not be.
    public func start() async throws(WebServerError) {
        // A port in use is found here, before Hummingbird starts: its failing start tears a
        // service group down in a way that can deadlock in swift-async-algorithms' merge (seen
        // once in 2026-11, the start never heard back).
        try Self.checkBindable(configuration.address)
        let started = FirstOutcome<StartOutcome>()
        let router = makeRouter()
        var logger = Logger(label: "lookout.http")
        logger.logLevel = .critical
        let address = configuration.address
        let registry = ConnectionRegistry<any Channel>(limits: configuration.limits)
        let http1 = HTTP1Channel.Configuration(
            // A backstop only: ConnectionGuard's own deadlines are shorter.
            idleTimeout: .seconds(60),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: Self.maximumHeaderFieldBytes, maxHeaderListSize: 16384, maxHeaderFieldCount: 64))
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: http1), registry: registry)
            },
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "Lookout"),
            onServerRunning: { [running] channel in
                running.withLock { $0.port = channel.localAddress?.port }
                started.offer(.listening)
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
            started.offer(.ended)
        }
        running.withLock {
            $0.task = task
            $0.group = group
        }
        // Bounded all the same: a server that neither listens nor fails within this is reported.
        switch await started.wait(atMost: .seconds(20), orElse: .timedOut) {
        case .listening:
            break
        case .timedOut:
            throw .cannotListen(address: address, reason: "the server did not start within 20 s")
        case .ended:
            throw .cannotListen(address: address, reason: running.withLock { $0.failure } ?? "the server stopped as it started")
        }
        isServing.store(true, ordering: .releasing)
        for camera in cameras { camera.preview.start() }
    }

    /// The longest request header line the server reads (an `Authorization` header with its token
    /// included); a longer one is refused with 431.
    public static let maximumHeaderFieldBytes = 8192

    /// Binds a socket to `address` as the server will (SO_REUSEADDR, as NIO sets it) and closes
    /// it; throws the system's reason when that fails.
    static func checkBindable(_ address: WebServerAddress) throws(WebServerError) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(address.host, String(address.port), &hints, &found)
        guard code == 0, let info = found else {
            throw .cannotListen(address: address, reason: String(cString: gai_strerror(code)))
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { return } // the server will say why
        defer { close(fd) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
            throw .cannotListen(address: address, reason: Errno.current.description)
        }
    }

    /// Ends the streams, closes every connection and stops listening (waiting two seconds at most).
    public func stop() async {
        isServing.store(false, ordering: .releasing)
        for camera in cameras { camera.preview.stop() }
        events.finishAll()
        guard let (task, group) = running.withLock({ state in state.task.flatMap { task in state.group.map { (task, $0) } } })
        else { return }
        let ended = FirstOutcome<Bool>()
        Task {
            await group.triggerGracefulShutdown()
            _ = await task.value
            ended.offer(true)
        }
        _ = await ended.wait(atMost: .seconds(2), orElse: false)
    }

    /// `http`: clients on `/api/stream.mjpeg` (`camera`'s own) and on `/api/events` now, requests,
    /// `camera`'s pictures sent to viewers and missed by slow ones, and clients disconnected for
    /// not reading.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let eventClients = events.clientCount
        let preview = (cameras.first { $0.name == camera } ?? cameras.first)?.preview.statistics ?? .init()
        return StatisticsSection(
            name: "http",
            fields: [StatisticsField("stream_clients", .integer(preview.viewers)),
                     StatisticsField("event_clients", .integer(eventClients)),
                     StatisticsField("requests", .integer(requestCount.load(ordering: .relaxed))),
                     StatisticsField("preview_frames", .integer(preview.previewFrames)),
                     StatisticsField("preview_frames_skipped", .integer(preview.skipped)),
                     StatisticsField("slow_clients_disconnected", .integer(events.slowClientsDisconnected + preview.disconnected))],
            metrics: [StatisticsMetric("lookout_http_stream_clients", help: "Clients on /api/stream.mjpeg.",
                                       .gauge(Double(preview.viewers))),
                      StatisticsMetric("lookout_http_preview_frames_total", help: "Pictures sent to viewers.",
                                       .counter(preview.previewFrames)),
                      StatisticsMetric("lookout_http_preview_frames_skipped_total", help: "Pictures a slow viewer missed.",
                                       .counter(preview.skipped)),
                      StatisticsMetric("lookout_http_event_clients", help: "Clients on /api/events.",
                                       .gauge(Double(eventClients)), isShared: true)])
    }

    // MARK: Routes

    private func makeRouter() -> Router<LookoutRequestContext> {
        // HEAD is answered as GET without the body (the streams check for it themselves).
        let router = Router(context: LookoutRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: HostCheck(policy: HostPolicy(
            allowedHosts: configuration.allowedHosts,
            restrictsHost: configuration.address.isLoopback && configuration.token == nil,
            allowedOrigins: configuration.allowedOrigins),
            hostsSetting: configuration.allowedHostsSetting, originsSetting: configuration.allowedOriginsSetting))
        if !configuration.allowedOrigins.isEmpty { router.add(middleware: CrossOriginSharing(origins: configuration.allowedOrigins)) }
        if let token = configuration.token { router.add(middleware: TokenAuthentication(token: token)) }
        router.add(middleware: QueryCheck())
        router.get("/") { [self] _, _ in
            counted(Response.uncached(.ok, type: "text/html; charset=utf-8", Array(WebPage.html.utf8)))
        }
        router.get("/api/status") { [self] request, _ in
            guard let camera = camera(for: request) else { return counted(unknownCamera) }
            return counted(status(of: camera))
        }
        router.get("/healthz") { [self] _, _ in counted(health()) }
        router.get("/metrics") { [self] _, _ in
            counted(Response.uncached(.ok, type: "text/plain; version=0.0.4; charset=utf-8",
                                  metrics.render(cameras.map(\.camera.pipeline.statistics))))
        }
        router.get("/api/latest.jpg") { [self] request, _ in
            guard let preview = camera(for: request)?.preview else { return counted(unknownCamera) }
            guard let boxes = Self.drawsBoxes(request) else { return counted(Self.badBoxes) }
            var height: Int?
            if let text = request.uri.queryParameters.get("h") {
                guard let value = Int(text), (16...8192).contains(value) else {
                    return counted(Response.plainText(.badRequest, "h must be a height from 16 to 8192"))
                }
                height = value
            }
            guard let jpeg = await preview.latestPicture(drawsBoxes: boxes, height: height) else {
                return counted(Response.plainText(.serviceUnavailable, "no frame yet"))
            }
            return counted(Response.uncached(.ok, type: "image/jpeg", jpeg))
        }
        router.get("/api/stream.mjpeg") { [self] request, context in
            guard let preview = camera(for: request)?.preview else { return counted(unknownCamera) }
            guard let boxes = Self.drawsBoxes(request) else { return counted(Self.badBoxes) }
            if request.method == .head { return counted(Response(status: .ok, headers: HTTPFields.uncached(type: PreviewBroadcaster.streamType))) }
            return counted(preview.streamResponse(drawsBoxes: boxes, channel: context.channel))
        }
        router.get("/api/events") { [self] request, context in
            if request.method == .head { return counted(Response(status: .ok, headers: HTTPFields.uncached(type: "text/event-stream"))) }
            return counted(events.streamResponse(channel: context.channel))
        }
        router.get("/snapshots/{name}") { [self] request, context in
            guard let camera = camera(for: request) else { return counted(unknownCamera) }
            return counted(StoredFileResponses.snapshot(named: context.parameters.get("name") ?? "", in: camera.camera.snapshotDirectory))
        }
        router.get("/api/recordings") { [self] request, _ in
            guard let camera = camera(for: request) else { return counted(unknownCamera) }
            return counted(StoredFileResponses.recordingList(camera: camera.name, in: camera.camera.recordingDirectory, query: cameras.count > 1 ? "?camera=" + camera.name : ""))
        }
        router.get("/recordings/{name}") { [self] request, context in
            guard let camera = camera(for: request) else { return counted(unknownCamera) }
            return counted(StoredFileResponses.recording(named: context.parameters.get("name") ?? "", in: camera.camera.recordingDirectory))
        }
        return router
    }

    /// `?boxes=`: 1 or true draws the boxes, 0 or false (or none) does not; nil for anything else.
    private static func drawsBoxes(_ request: Request) -> Bool? {
        switch request.uri.queryParameters.get("boxes") {
        case nil, "0", "false": return false
        case "1", "true": return true
        default: return nil
        }
    }

    private static var badBoxes: Response { .plainText(.badRequest, "boxes takes 1, true, 0 or false") }

    private func counted(_ response: Response) -> Response {
        requestCount.add(1, ordering: .relaxed)
        return response
    }

    private func status(of camera: Shown) -> Response {
        let pipeline = camera.camera.pipeline
        var writer = JSONWriter(capacity: 8192)
        pipeline.statistics.write(kind: "status", into: &writer)
        writer.key("cameras")
        writer.beginArray()
        for other in cameras {
            writer.beginObject()
            writer.key("camera"); writer.string(other.name)
            writer.key("source"); writer.string(other.camera.pipeline.configuration.source.repairedPath)
            writer.key("input"); writer.string(other.camera.pipeline.inputState.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.key("objects")
        writer.beginArray()
        var encoder = DetectionLineEncoder(source: pipeline.configuration.source, camera: pipeline.configuration.camera)
        for object in pipeline.latestObjects { writer.value(encoded: encoder.encode(object)) }
        writer.endArray()
        pipeline.metadataOutput.regions.writeFields(into: &writer)
        writer.key("recent_events")
        writer.beginArray()
        for line in events.recentEvents { writer.value(encoded: line) }
        writer.endArray()
        writer.endObject()
        return Response.uncached(.ok, type: "application/json", writer.bytes + [0x0A])
    }

    private func health() -> Response {
        let inputs = cameras.map { ($0.name, $0.camera.pipeline.inputState) }
        // No camera (a reload left none running) is not healthy: nothing is being watched.
        let healthy = !inputs.isEmpty && inputs.allSatisfy { $0.1.isHealthy }
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("status"); writer.string(healthy ? "ok" : "unavailable")
        // The first camera's state as `input` ("none" without a camera), and every camera's.
        writer.key("input"); writer.string(inputs.first?.1.rawValue ?? "none")
        writer.key("cameras")
        writer.beginObject()
        for (name, input) in inputs { writer.key(name); writer.string(input.rawValue) }
        writer.endObject()
        writer.endObject()
        return Response.uncached(healthy ? .ok : .serviceUnavailable, type: "application/json", writer.bytes + [0x0A])
    }

}
