import Foundation
import Lookout

/// Collects what a service's cameras hand their first sink (standard output's place): every
/// line, parsed, and every analysed frame's sequence and time, by camera.
final class ServiceCollector: EventSink, @unchecked Sendable {
    struct Frame: Equatable {
        var sequence: UInt64
        var presentationTime: MediaTime
    }

    private let lock = NSLock()
    private var linesByCamera: [String: [[String: Any]]] = [:]
    private var framesByPipeline: [ObjectIdentifier: [Frame]] = [:]
    private var rawLines: [[UInt8]] = []

    func consume(_ output: PipelineOutput) {
        lock.lock()
        defer { lock.unlock() }
        for line in output.lines {
            rawLines.append(line)
            if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], let camera = object["camera"] as? String {
                linesByCamera[camera, default: []].append(object)
            }
        }
    }

    /// Records `frame` for `pipeline` (a second sink per pipeline calls this: `FrameRecorder`).
    func record(_ frame: AnalysedFrame, of pipeline: ObjectIdentifier) {
        lock.lock()
        framesByPipeline[pipeline, default: []].append(Frame(sequence: frame.sequence, presentationTime: frame.presentationTime))
        lock.unlock()
    }

    func lines(of camera: String) -> [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return linesByCamera[camera] ?? []
    }

    var allLines: [[UInt8]] {
        lock.lock()
        defer { lock.unlock() }
        return rawLines
    }

    func frames(of pipeline: DetectionPipeline) -> [Frame] {
        lock.lock()
        defer { lock.unlock() }
        return framesByPipeline[ObjectIdentifier(pipeline)] ?? []
    }

    /// The kinds of the camera's lines ("qr", "face", "presence", ...).
    func kinds(of camera: String) -> Set<String> {
        Set(lines(of: camera).compactMap { $0["kind"] as? String })
    }
}
