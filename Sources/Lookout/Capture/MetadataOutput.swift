import Dispatch
import Synchronization

/// Receives detected codes and faces on the delegate's queue (AVCaptureMetadataOutputObjectsDelegate).
public protocol MetadataOutputObjectsDelegate: AnyObject, Sendable {
    /// The objects found in one analysed frame, all with that frame's time and sequence. Called for
    /// every frame that holds objects, and once with an empty array when objects leave the view
    /// (or for every analysed frame when `deliversEmptyResults` is on).
    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject],
                        from connection: CaptureConnection)

    /// Called once for every analysed frame, after `didOutput` when that was called for the frame.
    /// Optional: for delegates whose state moves with time even when nothing is found.
    func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                        from connection: CaptureConnection)
}

extension MetadataOutputObjectsDelegate {
    public func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                               from connection: CaptureConnection) {}
}

/// Finds machine-readable codes (ZBar) and faces (OpenCV Haar cascade) in a session's frames
/// (AVCaptureMetadataOutput).
///
/// `availableMetadataObjectTypes` is known once the output is in a session; `metadataObjectTypes`
/// must be a subset of it. Detection runs on the output's own serial queue, on the luma plane, within
/// `rectOfInterest`. While it is busy with a frame, newer frames from real-time inputs are dropped
/// as late (counted in `statistics`), so detection always works on recent frames and never holds
/// up capture.
public final class MetadataOutput: CaptureOutput, @unchecked Sendable {
    /// Counters of the work done so far.
    public struct Statistics: Sendable, Equatable {
        public var framesAnalysed = 0
        public var objectsByType: [MetadataObjectType: Int] = [:]
        public var drops = DropCounts()
        public var objectCount: Int { objectsByType.values.reduce(0, +) }
    }

    private struct Configuration {
        weak var delegate: (any MetadataOutputObjectsDelegate)?
        var queue: DispatchQueue?
        var types: [MetadataObjectType] = []
        var available: [MetadataObjectType] = []
        var rectOfInterest = Rect.unit
        var deliversEmptyResults = false
        var generation = 0
    }

    private let configuration = Mutex(Configuration())
    private let counters = Mutex(Statistics())
    private let processingQueue = DispatchQueue(label: "lookout.metadata-output", qos: .userInitiated)
    private let idle = DispatchSemaphore(value: 1)
    /// Bounds the results waiting for a slow delegate; past it detection waits, and frames drop
    /// upstream instead of results piling up.
    private let pendingResults = DispatchSemaphore(value: 16)
    private var reservationHoldsGate = false // capture thread only

    /// Settings of the face detector; nil leaves faces unavailable.
    public let faceDetectorConfiguration: FaceDetectorConfiguration?
    /// ZBar scan density (1 = every line). Higher is faster and may miss thin codes.
    public let codeScanDensity: Int

    // Processing-queue state.
    private var scanner: BarcodeScanner?
    private var faceDetector: FaceDetector?
    private var faceModelError: CaptureError?
    private lazy var faceTracker = FaceTracker(retention: faceDetectorConfiguration?.trackRetention ?? .zero)
    private var appliedGeneration = -1
    private var previousHadObjects = false

    public init(faceDetector: FaceDetectorConfiguration? = nil, codeScanDensity: Int = 1) {
        self.faceDetectorConfiguration = faceDetector
        self.codeScanDensity = codeScanDensity
    }

    public func setMetadataObjectsDelegate(_ delegate: (any MetadataOutputObjectsDelegate)?, queue: DispatchQueue?) {
        precondition((delegate == nil) == (queue == nil), "a metadata objects delegate needs a queue, and only then")
        configuration.withLock {
            $0.delegate = delegate
            $0.queue = queue
        }
    }

    public var metadataObjectsDelegate: (any MetadataOutputObjectsDelegate)? { configuration.withLock { $0.delegate } }
    public var metadataObjectsCallbackQueue: DispatchQueue? { configuration.withLock { $0.queue } }

    /// The types this output can find; empty until the output is added to a session.
    public var availableMetadataObjectTypes: [MetadataObjectType] { configuration.withLock { $0.available } }

    /// The types to look for; empty (the default) finds nothing.
    public var metadataObjectTypes: [MetadataObjectType] { configuration.withLock { $0.types } }

    /// Chooses the types to look for. Throws when a type is not in `availableMetadataObjectTypes`
    /// (where AVFoundation raises an exception), saying why faces are missing if the model failed.
    public func setMetadataObjectTypes(_ types: [MetadataObjectType]) throws(CaptureError) {
        let available = availableMetadataObjectTypes
        let missing = types.filter { !available.contains($0) }
        if !missing.isEmpty {
            if missing.contains(.face), let faceModelError = processingQueue.sync(execute: { self.faceModelError }) {
                throw faceModelError
            }
            throw .unavailableMetadataObjectTypes(missing, available: available)
        }
        var unique = [MetadataObjectType]()
        for type in types where !unique.contains(type) { unique.append(type) }
        configuration.withLock {
            $0.types = unique
            $0.generation += 1
        }
    }

    /// The part of the frame to search, normalized with a top-left origin; the whole frame by
    /// default. Objects whose centre lies outside it are not reported, and detectors skip the rest
    /// of the frame.
    public var rectOfInterest: Rect {
        get { configuration.withLock { $0.rectOfInterest } }
        set {
            let clamped = newValue.intersection(.unit)
            precondition(clamped.width > 0 && clamped.height > 0, "the rect of interest must overlap the frame")
            configuration.withLock { $0.rectOfInterest = clamped }
        }
    }

    /// Calls the delegate for every analysed frame, with an empty array when nothing was found.
    public var deliversEmptyResults: Bool {
        get { configuration.withLock { $0.deliversEmptyResults } }
        set { configuration.withLock { $0.deliversEmptyResults = newValue } }
    }

    public var statistics: Statistics {
        var snapshot = counters.withLock { $0 }
        snapshot.drops = drops.counts
        return snapshot
    }

    // MARK: Session contract

    override func didJoin(_ session: CaptureSession) {
        var available = MetadataObjectType.allCodeTypes
        processingQueue.sync {
            if let faceDetectorConfiguration, faceDetector == nil {
                do throws(CaptureError) {
                    faceDetector = try FaceDetector(configuration: faceDetectorConfiguration)
                } catch {
                    faceModelError = error
                }
            }
            if faceDetector != nil { available.append(.face) }
        }
        configuration.withLock { $0.available = available }
    }

    override func reserveFrame(wait: Bool) -> Bool {
        reservationHoldsGate = true
        return idle.wait(timeout: wait ? .distantFuture : .now()) == .success
    }

    override func cancelReservation() {
        idle.signal()
    }

    override func deliver(_ sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        processingQueue.async { [self] in
            defer { idle.signal() }
            analyse(sampleBuffer, from: connection)
        }
    }

    override func drain() {
        processingQueue.sync {}
        metadataObjectsCallbackQueue?.sync {}
    }

    // MARK: Detection (processing queue)

    /// Finds objects in one still image right away, on the calling thread's behalf (for
    /// `lookout scan`), with the same detectors, types and rect of interest as frames get.
    /// The output must be in a session.
    public func metadataObjects(in image: PixelBuffer, sequence: UInt64 = 0,
                                wallClockTime: WallClockTime = .now()) -> [MetadataObject] {
        let format = VideoFormatDescription(width: image.width, height: image.height, pixelFormat: .gray)
        let frame = SampleBuffer(sequence: sequence, presentationTime: .zero, wallClockTime: wallClockTime,
                                 formatDescription: format, imageBuffer: image)
        return processingQueue.sync { detect(in: frame, settings: configuration.withLock { $0 }) }
    }

    private func analyse(_ frame: SampleBuffer, from connection: CaptureConnection) {
        let settings = configuration.withLock { $0 }
        let objects = detect(in: frame, settings: settings)
        let hasObjects = !objects.isEmpty
        let deliversObjects = hasObjects || previousHadObjects || settings.deliversEmptyResults
        previousHadObjects = hasObjects
        guard let queue = settings.queue, let delegate = settings.delegate else { return }
        let analysed = AnalysedFrame(frame)
        pendingResults.wait()
        queue.async { [self] in
            if deliversObjects { delegate.metadataOutput(self, didOutput: objects, from: connection) }
            delegate.metadataOutput(self, didFinishAnalysing: analysed, from: connection)
            pendingResults.signal()
        }
    }

    private func detect(in frame: SampleBuffer, settings: Configuration) -> [MetadataObject] {
        if settings.generation != appliedGeneration {
            let codeTypes = Set(settings.types.filter(\.isMachineReadableCode))
            scanner = codeTypes.isEmpty ? nil : BarcodeScanner(types: codeTypes, density: codeScanDensity)
            appliedGeneration = settings.generation
        }
        let image = frame.imageBuffer
        let roi = settings.rectOfInterest
        let x = Int((roi.x * Double(image.width)).rounded(.down))
        let y = Int((roi.y * Double(image.height)).rounded(.down))
        let region = (x: x, y: y,
                      width: max(1, min(image.width - x, Int((roi.width * Double(image.width)).rounded(.up)))),
                      height: max(1, min(image.height - y, Int((roi.height * Double(image.height)).rounded(.up)))))
        let pixelROI = Rect(x: Double(region.x), y: Double(region.y),
                            width: Double(region.width), height: Double(region.height))

        var objects = [MetadataObject]()
        if let scanner {
            for code in scanner.scan(image, region: region) {
                let box = Rect.enclosing(code.corners)
                guard pixelROI.contains(Point(x: box.midX, y: box.midY)) else { continue }
                objects.append(MachineReadableCodeObject(type: code.type, frame: frame, payload: code.payload,
                                                         pixelCorners: code.corners))
            }
        }
        if settings.types.contains(.face), let faceDetector {
            do {
                let boxes = try faceDetector.detect(image, region: region)
                let ids = faceTracker.assignIDs(to: boxes, at: frame.presentationTime)
                for (box, id) in zip(boxes, ids) {
                    objects.append(FaceObject(frame: frame, pixelBounds: box, faceID: id))
                }
            } catch {
                session?.reportRuntimeError(error)
            }
        }
        counters.withLock { stats in
            stats.framesAnalysed += 1
            for object in objects { stats.objectsByType[object.type, default: 0] += 1 }
        }
        return objects
    }
}
