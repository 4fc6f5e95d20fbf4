import Dispatch
import Lookout
import Synchronization

/// Writes detections to standard output as they arrive, one flush per analysed frame so that a
/// consumer sees each code as soon as it is read, and hands every analysed frame to the event
/// router when there is one. Runs on its own serial queue.
final class DetectionPrinter: MetadataOutputObjectsDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "lookout.printer", qos: .userInitiated)
    let sink: LineSink
    private let format: OutputFormat
    private var json: DetectionLineEncoder
    private let text = TextLineEncoder()
    private let onClosed: @Sendable () -> Void
    private let closedReported = Atomic<Bool>(false)
    /// Writes per-frame lines (`--events frames`); otherwise the router writes event lines.
    private let writesFrames: Bool
    let events: EventRouter?
    private var objectsOfFrame: [MetadataObject] = []
    private var frameHasCodes = false
    /// From receiving a frame to writing its code lines (or events), for frames with codes.
    private(set) var codeLatency = TimingHistogram()

    /// - Parameter onClosed: called once, when standard output can no longer be written.
    init(format: OutputFormat, source: String, sink: LineSink, events: EventRouter?,
         onClosed: @escaping @Sendable () -> Void) {
        self.format = format
        self.json = DetectionLineEncoder(source: source)
        self.sink = sink
        self.events = events
        self.writesFrames = !(events?.writesLines ?? false)
        self.onClosed = onClosed
    }

    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject],
                        from connection: CaptureConnection) {
        if writesFrames { write(metadataObjects) }
        if events != nil { objectsOfFrame = metadataObjects }
        frameHasCodes = metadataObjects.contains { $0.type.isMachineReadableCode }
    }

    func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                        from connection: CaptureConnection) {
        if let events {
            let lines = events.process(objectsOfFrame, in: frame, format: format)
            objectsOfFrame.removeAll(keepingCapacity: true)
            writeLines(lines)
        }
        if frameHasCodes {
            codeLatency.record(since: frame.hostTime)
            frameHasCodes = false
        }
    }

    /// The camera was lost; call on `queue`.
    func interrupted() {
        guard let events else { return }
        writeLines(events.interrupt(format: format))
    }

    /// Encodes and writes objects; call on `queue`.
    func write(_ objects: [MetadataObject]) {
        guard !sink.isClosed, !objects.isEmpty else { return }
        for object in objects {
            sink.append(format == .json ? json.encode(object) : text.encode(object))
        }
        flush()
    }

    private func writeLines(_ lines: [[UInt8]]) {
        guard !sink.isClosed, !lines.isEmpty else { return }
        for line in lines { sink.append(line) }
        flush()
    }

    private func flush() {
        if !sink.flush(), !closedReported.exchange(true, ordering: .relaxed) {
            onClosed()
        }
    }

    /// Writes a line that is not a detection (the stats line); call on `queue`.
    func writeLine(_ line: [UInt8]) {
        sink.append(line)
        sink.flush()
    }
}
