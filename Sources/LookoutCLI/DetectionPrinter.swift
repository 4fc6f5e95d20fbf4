import Dispatch
import Lookout
import Synchronization

/// Writes detections to standard output as they arrive, one flush per analysed frame so that a
/// consumer sees each code as soon as it is read. Runs on its own serial queue.
final class DetectionPrinter: MetadataOutputObjectsDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "lookout.printer", qos: .userInitiated)
    let sink: LineSink
    private let format: OutputFormat
    private var json: DetectionLineEncoder
    private let text = TextLineEncoder()
    private let onClosed: @Sendable () -> Void
    private let closedReported = Atomic<Bool>(false)

    /// - Parameter onClosed: called once, when standard output can no longer be written.
    init(format: OutputFormat, source: String, sink: LineSink, onClosed: @escaping @Sendable () -> Void) {
        self.format = format
        self.json = DetectionLineEncoder(source: source)
        self.sink = sink
        self.onClosed = onClosed
    }

    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject],
                        from connection: CaptureConnection) {
        write(metadataObjects)
    }

    /// Encodes and writes objects; call on `queue`.
    func write(_ objects: [MetadataObject]) {
        guard !sink.isClosed, !objects.isEmpty else { return }
        for object in objects {
            sink.append(format == .json ? json.encode(object) : text.encode(object))
        }
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
