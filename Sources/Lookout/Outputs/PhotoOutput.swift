import Dispatch
import Synchronization

/// How a photo is made (AVCapturePhotoSettings).
public struct PhotoSettings: Sendable {
    /// Outlines and labels of the metadata objects found in the frame drawn into the picture.
    public var drawsMetadataObjects = false
    /// Scales the picture down to this many pixels high (never up); nil keeps the frame's size.
    public var maximumHeight: Int?
    /// Identifies the request in the delivered photo.
    public let uniqueID: Int

    private static let nextID = Atomic<Int>(1)

    public init(drawsMetadataObjects: Bool = false, maximumHeight: Int? = nil) {
        self.drawsMetadataObjects = drawsMetadataObjects
        self.maximumHeight = maximumHeight
        uniqueID = Self.nextID.add(1, ordering: .relaxed).oldValue
    }
}

/// A photo: one frame as a JPEG image, with the metadata objects found in it (AVCapturePhoto).
public struct CapturePhoto: Sendable {
    public let resolvedSettings: PhotoSettings
    public let sequence: UInt64
    public let presentationTime: MediaTime
    public let wallClockTime: WallClockTime
    /// The frame's size (the JPEG is smaller when `maximumHeight` asked for it).
    public let width: Int
    public let height: Int
    /// Codes and faces the session's metadata output found in this frame.
    public let metadataObjects: [MetadataObject]
    private let jpeg: [UInt8]

    init(settings: PhotoSettings, frame: SampleBuffer, objects: [MetadataObject], jpeg: [UInt8]) {
        resolvedSettings = settings
        sequence = frame.sequence
        presentationTime = frame.presentationTime
        wallClockTime = frame.wallClockTime
        width = frame.formatDescription.width
        height = frame.formatDescription.height
        metadataObjects = objects
        self.jpeg = jpeg
    }

    /// The JPEG image: the input's own bytes for an MJPEG frame taken as it is, otherwise encoded
    /// (in colour where the input sends colour) by TurboJPEG.
    public func fileDataRepresentation() -> [UInt8] { jpeg }
}

/// Receives photos (AVCapturePhotoCaptureDelegate).
public protocol PhotoCaptureDelegate: AnyObject, Sendable {
    /// The photo, or why none could be made. Called on the output's own queue.
    func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto photo: CapturePhoto?, error: CaptureError?)
}

/// Takes photos of the session's frames on request (AVCapturePhotoOutput): `capturePhoto` delivers
/// the next frame as a JPEG with the objects the session's metadata output found in it.
///
/// Costs nothing between requests: the output takes no frame and the session copies no picture.
/// A request waits for the metadata output's analysis of its frame (at most `analysisWait`);
/// when that output skips the frame for codes, the next frame is taken instead (up to
/// `maximumRetakes` times, then the objects last found before the frame are given). Faces are
/// those of the frame when the face queue analysed it, else the last ones found before it.
// @unchecked: restates its base class's; requests are in locks, the renderer is the capture thread's.
public final class PhotoOutput: CaptureOutput, @unchecked Sendable {
    private struct Request {
        var settings: PhotoSettings
        var delegate: any PhotoCaptureDelegate
    }

    /// A frame taken for requests, waiting for its objects.
    private struct Held {
        var frame: SampleBuffer
        /// The frame's picture: a frame is held only when it came with one.
        var picture: FramePicture
        var requests: [Request]
        var codes: [MetadataObject]?
        var faces: [MetadataObject]?
        var earlierFaces: [MetadataObject] = []
        var earlierCodes: [MetadataObject] = []
    }

    private struct State {
        var requests: [Request] = []
        var held: Held?
        var latestFaces: (sequence: UInt64, objects: [MetadataObject])?
        var latestCodes: (sequence: UInt64, objects: [MetadataObject])?
        var observing: MetadataOutput?
        /// Frames taken for the current requests that the metadata output then skipped.
        var retakes = 0
    }

    /// Frames skipped by the metadata output before a photo settles for the objects last known.
    static let maximumRetakes = 8

    /// How long a photo waits for the metadata output's results for its frame.
    public static let analysisWait = 2.0
    private let state = Locked(State())
    private let hasRequests = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "lookout.photo-output", qos: .userInitiated)
    private let renderer = PictureRenderer() // `queue` only

    public override init() {}

    /// Asks for a photo of the next frame; `delegate` gets it on the output's queue. Fails at once
    /// when the output is in no session, or in one whose run has ended. Asked before the session
    /// runs, it waits for the first frame: a file read in less than a second would otherwise end
    /// before a viewer's first request could be served (AVFoundation refuses it instead).
    public func capturePhoto(with settings: PhotoSettings, delegate: any PhotoCaptureDelegate) {
        guard let session, !session.inputs.isEmpty, !session.hasStoppedRunning else {
            queue.async { [self] in
                delegate.photoOutput(self, didFinishProcessingPhoto: nil,
                                     error: .cannotAdd("a photo needs a running session with an input"))
            }
            return
        }
        state.withLock {
            $0.requests.append(Request(settings: settings, delegate: delegate))
            hasRequests.store(true, ordering: .relaxed)
        }
    }

    // MARK: Session contract (capture thread)

    /// A photo is the frame's picture.
    override public var requirements: OutputRequirements { OutputRequirements(wantsPicture: true) }

    override func reserveFrame(at time: MediaTime, wait: Bool) -> FrameReservation {
        hasRequests.load(ordering: .relaxed) && state.withLock { $0.held == nil } ? .taken : .declined
    }

    override func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        guard let picture = sampleBuffer.picture else { return } // no picture buffer free: the next frame serves
        let metadata = session?.outputs.lazy.compactMap { $0 as? MetadataOutput }.first { !$0.metadataObjectTypes.isEmpty }
        let ready: Held? = state.withLock { state in
            guard state.held == nil, !state.requests.isEmpty else { return nil }
            var held = Held(frame: sampleBuffer, picture: picture, requests: state.requests)
            state.requests.removeAll()
            hasRequests.store(false, ordering: .relaxed)
            if let latest = state.latestFaces, latest.sequence <= sampleBuffer.sequence { held.earlierFaces = latest.objects }
            if let latest = state.latestCodes, latest.sequence <= sampleBuffer.sequence { held.earlierCodes = latest.objects }
            guard let metadata else { return held } // nothing looks for objects: deliver now
            if state.observing !== metadata {
                state.observing?.removeReportObserver(self)
                state.observing = metadata
                metadata.addReportObserver(self) { [weak self] frame, objects in self?.observe(frame, objects) }
            }
            let wantsCodes = metadata.metadataObjectTypes.contains(where: \.isMachineReadableCode)
            let wantsFaces = metadata.metadataObjectTypes.contains(.face)
            if !wantsCodes { held.codes = [] }
            if !wantsFaces { held.faces = [] }
            state.held = held
            return nil
        }
        if let ready {
            finish(ready)
        } else {
            let sequence = sampleBuffer.sequence
            queue.asyncAfter(deadline: .fromNow(seconds: Self.analysisWait)) { [self] in
                let late: Held? = state.withLock { state in
                    guard let held = state.held, held.frame.sequence == sequence else { return nil }
                    state.held = nil
                    state.retakes = 0
                    return held
                }
                if let late { finish(late) }
            }
        }
    }

    /// A metadata output's report (detector queues): fills in the held frame's objects. A report
    /// for a later frame means the held one was skipped for that kind.
    private func observe(_ frame: AnalysedFrame, _ objects: [MetadataObject]) {
        let complete: Held? = state.withLock { state in
            if frame.analysedFaces { state.latestFaces = (frame.sequence, objects) }
            if frame.analysedCodes { state.latestCodes = (frame.sequence, objects) }
            guard var held = state.held else { return nil }
            let sequence = held.frame.sequence
            if frame.analysedCodes, held.codes == nil, frame.sequence >= sequence {
                if frame.sequence == sequence {
                    held.codes = objects
                } else if state.retakes < Self.maximumRetakes {
                    // The metadata output skipped the frame: take the next one instead.
                    state.retakes += 1
                    state.requests = held.requests + state.requests
                    hasRequests.store(true, ordering: .relaxed)
                    state.held = nil
                    return nil
                } else {
                    held.codes = held.earlierCodes
                }
            }
            if frame.analysedFaces, held.faces == nil {
                if frame.sequence == sequence { held.faces = objects }
                else if frame.sequence < sequence { held.earlierFaces = objects }
                else { held.faces = held.earlierFaces } // the face queue skipped this frame
            }
            guard held.codes != nil, held.faces != nil else {
                state.held = held
                return nil
            }
            state.held = nil
            state.retakes = 0
            return held
        }
        if let complete { finish(complete) }
    }

    /// Renders and delivers the held frame's photos.
    private func finish(_ held: Held) {
        // Objects not reported in time are the last ones known at the frame.
        let objects = (held.codes ?? held.earlierCodes) + (held.faces ?? held.earlierFaces)
        queue.async { [self] in
            let picture = held.picture
            let overlays = objects.map(PictureRenderer.Overlay.init)
            for request in held.requests {
                do throws(MediaError) {
                    let jpeg = try renderer.jpeg(of: picture, overlays: request.settings.drawsMetadataObjects ? overlays : [],
                                                 height: request.settings.maximumHeight)
                    let photo = CapturePhoto(settings: request.settings, frame: held.frame, objects: objects, jpeg: jpeg)
                    request.delegate.photoOutput(self, didFinishProcessingPhoto: photo, error: nil)
                } catch {
                    request.delegate.photoOutput(self, didFinishProcessingPhoto: nil, error: .input(error))
                }
            }
        }
    }

    /// The session stopped: a held frame is delivered with the objects known, and requests no
    /// frame will serve now hear so, rather than waiting for ever.
    override func drain() {
        let (held, unserved): (Held?, [Request]) = state.withLock { state in
            defer {
                state.held = nil
                state.requests.removeAll()
                state.retakes = 0
                hasRequests.store(false, ordering: .relaxed)
            }
            return (state.held, state.requests)
        }
        if let held { finish(held) }
        if !unserved.isEmpty {
            queue.async { [self] in
                for request in unserved {
                    request.delegate.photoOutput(self, didFinishProcessingPhoto: nil,
                                                 error: .cannotAdd("the session stopped before a frame came for the photo"))
                }
            }
        }
        queue.sync {}
    }
}
