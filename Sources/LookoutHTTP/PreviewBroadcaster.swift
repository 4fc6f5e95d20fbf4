import Dispatch
import Lookout
import NIOCore

/// The pictures of the web view: photos of the live frames (`PhotoOutput`) sent to every viewer
/// of `/api/stream.mjpeg`, and the newest kept for `/api/latest.jpg`.
///
/// While nobody watches it takes one photo a second (an MJPEG frame's own bytes, nothing encoded),
/// so that `latest.jpg` answers at once; while someone watches, `previewRate` a second. Each viewer
/// holds at most one picture: a slow one skips frames (counted), and one that takes none for
/// `stallTimeout` seconds is disconnected.
final class PreviewBroadcaster: PhotoCaptureDelegate, Sendable {
    static let idleInterval = 1.0
    static let stallTimeout = 10.0
    static let maximumViewers = 16

    struct Picture: Sendable {
        var jpeg: [UInt8]
        var photo: CapturePhoto
    }

    private struct Viewer {
        var continuation: AsyncStream<[UInt8]>.Continuation
        var drawsBoxes: Bool
        var channel: any Channel
        /// MonotonicClock nanoseconds of the last picture the viewer took.
        var lastTaken: Int64
    }

    private struct State {
        var viewers: [Int: Viewer] = [:]
        var nextID = 0
        var latest: CapturePhoto?
        var inFlight = false
        var stopped = false
        var waiting: [@Sendable (CapturePhoto?) -> Void] = []
        var previewFrames = 0
        var skipped = 0
        var disconnected = 0
        var lastResent: Int64 = 0
    }

    let photoOutput: PhotoOutput
    let previewRate: Double
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "lookout.http.preview", qos: .utility)
    private let renderer = Locked(PictureRenderer()) // `queue`'s

    init(photoOutput: PhotoOutput, previewRate: Double) {
        self.photoOutput = photoOutput
        self.previewRate = max(0.1, previewRate)
    }

    func start() {
        queue.async { [self] in tick() }
    }

    func stop() {
        let viewers = state.withLock { state -> [Viewer] in
            state.stopped = true
            defer { state.viewers.removeAll() }
            return Array(state.viewers.values)
        }
        for viewer in viewers { viewer.continuation.finish() }
    }

    /// Asks for the next photo when none is on its way, at the viewers' rate or the idle one.
    private func tick() {
        let (ask, interval): (Bool, Double) = state.withLock { state in
            guard !state.stopped else { return (false, -1) }
            let ask = !state.inFlight
            if ask { state.inFlight = true }
            return (ask, state.viewers.isEmpty && state.waiting.isEmpty ? Self.idleInterval : 1 / previewRate)
        }
        guard interval > 0 else { return }
        if ask { photoOutput.capturePhoto(with: PhotoSettings(), delegate: self) }
        queue.asyncAfter(deadline: .fromNow(seconds: interval)) { [self] in tick() }
    }

    func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto photo: CapturePhoto?, error: CaptureError?) {
        let (viewers, waiting): ([Int: Viewer], [@Sendable (CapturePhoto?) -> Void]) = state.withLock { state in
            state.inFlight = false
            guard let photo else {
                // No new frame (a file read to its end): the newest again, once a second, because a
                // browser shows a multipart picture only once the next part begins.
                let now = MonotonicClock.nanoseconds()
                guard let latest = state.latest, !state.viewers.isEmpty, now - state.lastResent > 1_000_000_000 else { return ([:], []) }
                state.lastResent = now
                let viewers = state.viewers
                queue.async { [self] in send(latest, to: viewers) }
                return ([:], [])
            }
            state.latest = photo
            defer { state.waiting.removeAll() }
            return (state.viewers, state.waiting)
        }
        guard let photo else { return }
        for reply in waiting { reply(photo) }
        guard !viewers.isEmpty else { return }
        queue.async { [self] in send(photo, to: viewers) }
    }

    /// Queue: one picture to each viewer, boxes drawn for those who asked, rendered once per kind.
    private func send(_ photo: CapturePhoto, to viewers: [Int: Viewer]) {
        var boxed: [UInt8]?
        let now = MonotonicClock.nanoseconds()
        var skipped = 0, sent = 0
        var stalled: [(Int, Viewer)] = []
        for (id, viewer) in viewers {
            if Double(now - viewer.lastTaken) / 1e9 > Self.stallTimeout {
                stalled.append((id, viewer))
                continue
            }
            var jpeg = photo.fileDataRepresentation()
            if viewer.drawsBoxes {
                if boxed == nil { boxed = (try? render(photo, drawsBoxes: true, height: nil)) ?? jpeg }
                jpeg = boxed!
            }
            sent += 1
            if case .dropped = viewer.continuation.yield(jpeg) { skipped += 1 }
        }
        state.withLock { state in
            state.previewFrames += sent
            state.skipped += skipped
            state.disconnected += stalled.count
            for (id, _) in stalled { state.viewers.removeValue(forKey: id) }
        }
        for (_, viewer) in stalled {
            viewer.continuation.finish()
            viewer.channel.close(promise: nil)
        }
    }

    /// Queue: a photo redrawn (boxes) or scaled (height) from its JPEG.
    private func render(_ photo: CapturePhoto, drawsBoxes: Bool, height: Int?) throws(MediaError) -> [UInt8] {
        let picture = FramePicture(copying: photo.fileDataRepresentation(), width: photo.width, height: photo.height,
                                   pixelFormat: .mjpeg)
        let overlays = drawsBoxes ? photo.metadataObjects.map(PictureRenderer.Overlay.init) : []
        return try renderer.withLock { renderer throws(MediaError) in try renderer.jpeg(of: picture, overlays: overlays, height: height) }
    }

    // MARK: Viewers

    /// A new viewer's stream of JPEG pictures; nil when `maximumViewers` watch already.
    func addViewer(drawsBoxes: Bool, channel: any Channel) -> (id: Int, pictures: AsyncStream<[UInt8]>)? {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLock { state in
            guard state.viewers.count < Self.maximumViewers, !state.stopped else { return nil }
            state.nextID += 1
            state.viewers[state.nextID] = Viewer(continuation: continuation, drawsBoxes: drawsBoxes, channel: channel,
                                                 lastTaken: MonotonicClock.nanoseconds())
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in self?.removeViewer(id) }
        // The newest picture at once, so the view is not blank until the next photo.
        if let latest = latestPhoto {
            queue.async { [self] in
                if let viewer = state.withLock({ $0.viewers[id] }) { send(latest, to: [id: viewer]) }
            }
        }
        return (id, stream)
    }

    /// The viewer finished writing a picture: it is reading.
    func viewerTook(_ id: Int) {
        state.withLock { $0.viewers[id]?.lastTaken = MonotonicClock.nanoseconds() }
    }

    func removeViewer(_ id: Int) {
        _ = state.withLock { $0.viewers.removeValue(forKey: id) }
    }

    var latestPhoto: CapturePhoto? { state.withLock { $0.latest } }

    /// The newest frame as JPEG, boxes drawn or scaled as asked; waits up to `wait` seconds for a
    /// first photo. Nil when there is none.
    func latestPicture(drawsBoxes: Bool, height: Int?, wait: Double = 3) async -> [UInt8]? {
        var photo = latestPhoto
        if photo == nil {
            photo = await withCheckedContinuation { (continuation: CheckedContinuation<CapturePhoto?, Never>) in
                let once = Locked(false)
                let reply: @Sendable (CapturePhoto?) -> Void = { photo in
                    let first = once.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: photo) }
                }
                state.withLock { $0.waiting.append(reply) }
                queue.asyncAfter(deadline: .fromNow(seconds: wait)) { reply(nil) }
            }
        }
        guard let photo else { return nil }
        if !drawsBoxes && height == nil { return photo.fileDataRepresentation() }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: try? render(photo, drawsBoxes: drawsBoxes, height: height)) }
        }
    }

    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// Viewers now, pictures sent (JPEG-encoded or passed through), pictures a slow viewer
    /// missed, and viewers disconnected for not reading.
    struct Statistics {
        var viewers = 0
        var previewFrames = 0
        var skipped = 0
        var disconnected = 0
    }

    var statistics: Statistics {
        state.withLock { state in
            Statistics(viewers: state.viewers.count, previewFrames: state.previewFrames, skipped: state.skipped,
                       disconnected: state.disconnected)
        }
    }
}
