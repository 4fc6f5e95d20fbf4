import Lookout

/// Turns analysed frames into events and sends each where it was asked for: standard output
/// (`--events changes`), the MQTT broker, and the hooks. Runs on the printer's queue, so events
/// leave in order and never on the capture or detection threads.
final class EventRouter {
    private var generator: EventGenerator
    private var encoder: EventLineEncoder
    private let source: String
    let writesLines: Bool
    let mqtt: MQTTEventPublisher?
    let codeHook: HookRunner?
    let presenceHook: HookRunner?

    init(settings: EventSettings, source: String, writesLines: Bool, mqtt: MQTTEventPublisher?,
         codeHook: HookRunner?, presenceHook: HookRunner?) {
        generator = EventGenerator(settings: settings)
        encoder = EventLineEncoder(source: source)
        self.source = source
        self.writesLines = writesLines
        self.mqtt = mqtt
        self.codeHook = codeHook
        self.presenceHook = presenceHook
    }

    /// The lines for standard output (empty unless `writesLines`) from one analysed frame.
    func process(_ objects: [MetadataObject], in frame: AnalysedFrame, format: OutputFormat) -> [[UInt8]] {
        route(generator.process(objects, in: frame), format: format)
    }

    /// The camera was lost: faces leave and presence ends now.
    func interrupt(format: OutputFormat) -> [[UInt8]] {
        route(generator.interrupt(), format: format)
    }

    private func route(_ events: [DetectionEvent], format: OutputFormat) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for event in events {
            let line = encoder.encode(event)
            if writesLines { lines.append(format == .json ? line : Self.text(event)) }
            mqtt?.publish(event, line: line)
            switch event {
            case .code:
                codeHook?.run(input: line, environment: HookEnvironment.variables(for: event, source: source))
            case .presence:
                presenceHook?.run(input: line, environment: HookEnvironment.variables(for: event, source: source))
            default:
                break
            }
        }
        return lines
    }

    /// Events in the text format: codes as zbarcam prints them, the rest as `Kind:detail`.
    static func text(_ event: DetectionEvent) -> [UInt8] {
        switch event {
        case .code(let code): return TextLineEncoder().encode(code)
        case .faceEnter(let face): return Array("Face-Enter:\(face.faceID)\n".utf8)
        case .faceLeave(let leave): return Array("Face-Leave:\(leave.faceID)\n".utf8)
        case .presence(let change): return Array("Presence:\(change.isPresent ? "on" : "off")\n".utf8)
        }
    }
}
