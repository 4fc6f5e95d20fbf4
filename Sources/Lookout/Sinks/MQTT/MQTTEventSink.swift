import Dispatch

/// Publishes a camera's events to the MQTT broker (`MQTTEventPublisher`), its availability as
/// its input is lost and found, and each event's snapshot (`EmittedEvent.snapshotPicture`, the
/// bytes of the snapshot file) as binary JPEG on `<prefix>/<camera>/snapshot`, retained.
public final class MQTTEventSink: EventSink, Sendable {
    public let publisher: MQTTEventPublisher
    private let diagnostics: @Sendable (String) -> Void
    /// Snapshots are encoded here (by whichever sink asks first), off the pipeline's queue.
    private let snapshots = DispatchQueue(label: "lookout.mqtt-snapshots", qos: .utility)
    /// The newest snapshot not yet taken by `snapshots`: the topic is retained and shows only the
    /// newest, so one waits at most, holding one frame's picture, however fast events come.
    private let newestSnapshot = Locked<SnapshotPicture?>(nil)
    /// Where what a stop could not deliver goes (a node's one report); nil: said here.
    private let undeliveredReport: (@Sendable (MQTTEventPublisher.Undelivered) -> Void)?

    public convenience init(publisher: MQTTEventPublisher, diagnostics: @escaping @Sendable (String) -> Void) {
        self.init(publisher: publisher, diagnostics: diagnostics, undeliveredReport: nil)
    }

    init(publisher: MQTTEventPublisher, diagnostics: @escaping @Sendable (String) -> Void,
         undeliveredReport: (@Sendable (MQTTEventPublisher.Undelivered) -> Void)?) {
        self.publisher = publisher
        self.diagnostics = diagnostics
        self.undeliveredReport = undeliveredReport
        publisher.start()
    }

    public func consume(_ output: PipelineOutput) {
        switch output.inputChange {
        case .lost?: publisher.setAvailable(false)
        case .found?: publisher.setAvailable(true)
        case nil: break
        }
        for emitted in output.events {
            publisher.publish(emitted.event, line: emitted.line)
            if let snapshot = emitted.snapshotPicture {
                let noneWaiting = newestSnapshot.withLock { waiting in
                    defer { waiting = snapshot }
                    return waiting == nil
                }
                if noneWaiting { snapshots.async { [self] in publishNewestSnapshot() } }
            }
        }
    }

    /// Snapshot queue: publishes the newest snapshot waiting, if one still is.
    private func publishNewestSnapshot() {
        guard let snapshot = newestSnapshot.withLock({ waiting in defer { waiting = nil }; return waiting }) else { return }
        do throws(MediaError) {
            publisher.publishSnapshot(try snapshot.jpeg())
        } catch {
            diagnostics("warning: MQTT: a snapshot could not be encoded: \(error)")
        }
    }

    /// Removes the camera's Home Assistant entities (a reload removed the camera); before `finish()`.
    public func withdrawDiscovery() {
        publisher.withdrawDiscovery()
    }

    /// Delivers what is queued and disconnects, within the stop's deadline (`StopDeadline`).
    public func finish() {
        snapshots.sync {}
        guard let undelivered = publisher.stop() else { return }
        if let undeliveredReport {
            undeliveredReport(undelivered)
        } else {
            diagnostics(MQTTUndeliveredReport.sentence(broker: publisher.configuration.broker, senders: ["camera " + (publisher.configuration.camera ?? "")],
                                                      undelivered))
        }
    }

    /// `mqtt`: events the broker acknowledged, dropped (the queue full, the outbox's bounds), and
    /// waiting now; the outbox's events not yet acknowledged, its bytes and its drops.
    public func statisticsSection(camera: String?) -> StatisticsSection? {
        let statistics = publisher.statistics
        return StatisticsSection(
            name: "mqtt",
            // `broker` only while connected: which broker of the fabric this camera uses.
            fields: [StatisticsField("connected", .bool(statistics.connected))]
                + (statistics.broker.map { [StatisticsField("broker", .string($0))] } ?? [])
                + [StatisticsField("acknowledged", .integer(statistics.acknowledged)),
                   StatisticsField("dropped", .integer(statistics.dropped)),
                   StatisticsField("queued", .integer(statistics.pending)),
                   StatisticsField("outbox_pending", .integer(statistics.outboxPending)),
                   StatisticsField("outbox_bytes", .integer(Int(statistics.outboxBytes))),
                   StatisticsField("outbox_dropped", .integer(statistics.outboxDropped))],
            metrics: [StatisticsMetric("lookout_mqtt_queue_depth", help: "MQTT messages waiting for the broker.",
                                       .gauge(Double(statistics.pending))),
                      StatisticsMetric("lookout_mqtt_connected", help: "1 while connected to the MQTT broker.",
                                       .gauge(statistics.connected ? 1 : 0)),
                      StatisticsMetric("lookout_mqtt_dropped_total", help: "Events dropped from the full MQTT queue or the outbox.",
                                       .counter(statistics.dropped)),
                      StatisticsMetric("lookout_mqtt_outbox_pending", help: "Events in the MQTT outbox on disk not acknowledged yet.",
                                       .gauge(Double(statistics.outboxPending))),
                      StatisticsMetric("lookout_mqtt_outbox_bytes", help: "Bytes of the MQTT outbox's files.",
                                       .gauge(Double(statistics.outboxBytes))),
                      StatisticsMetric("lookout_mqtt_outbox_dropped_total", help: "Events the MQTT outbox dropped past its size or age bound.",
                                       .counter(statistics.outboxDropped))]
                // One series per broker of the fabric, 1 for the one connected to: a failover moves the 1.
                + publisher.configuration.brokers.map(\.redacted).map { broker in
                    StatisticsMetric("lookout_mqtt_broker", help: "1 for the MQTT broker of the list connected to now, else 0.",
                                     labels: [("broker", broker)], .gauge(statistics.broker == broker ? 1 : 0))
                })
    }
}
