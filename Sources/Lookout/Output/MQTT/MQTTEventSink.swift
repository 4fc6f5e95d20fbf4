/// Publishes a camera's events to the MQTT broker (`MQTTEventPublisher`), its availability as
/// its input is lost and found, and each snapshot written as binary JPEG on
/// `<prefix>/<camera>/snapshot`, retained.
public final class MQTTEventSink: EventSink, @unchecked Sendable {
    public let publisher: MQTTEventPublisher
    private let diagnostics: @Sendable (String) -> Void

    public init(publisher: MQTTEventPublisher, diagnostics: @escaping @Sendable (String) -> Void) {
        self.publisher = publisher
        self.diagnostics = diagnostics
        publisher.start()
    }

    public func consume(_ output: PipelineOutput) {
        switch output.inputChange {
        case .lost?: publisher.setAvailable(false)
        case .found?: publisher.setAvailable(true)
        case nil: break
        }
        for emitted in output.events { publisher.publish(emitted.event, line: emitted.line) }
    }

    /// Publishes a snapshot's JPEG bytes (from `SnapshotWriter.onWritten`).
    public func publishSnapshot(_ jpeg: [UInt8]) {
        publisher.publishSnapshot(jpeg)
    }

    public func finish() {
        let undelivered = publisher.stop()
        if undelivered > 0 {
            diagnostics("MQTT: \(undelivered) event\(undelivered == 1 ? "" : "s") not delivered (the broker is unreachable)")
        }
    }

    public func report(into snapshot: inout StatisticsSnapshot) {
        let statistics = publisher.statistics
        var mqtt = StatisticsSnapshot.MQTTStatistics()
        mqtt.acknowledged = statistics.acknowledged
        mqtt.dropped = statistics.dropped
        mqtt.queued = statistics.pending
        mqtt.connected = statistics.connected
        snapshot.mqtt = mqtt
    }
}
