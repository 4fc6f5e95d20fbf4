/// What an event goes through on the pipeline's queue before the sinks, in this order: its id
/// (`EventNumbering`), its snapshot's name and picture (the `SnapshotNaming` sink, when there is
/// one), then its one line (`EventLineEncoder`), which names both. Every sink then gets the same
/// `EmittedEvent`. Used on the pipeline's queue only.
struct EventStages {
    var numbering: EventNumbering
    var encoder: EventLineEncoder
    var snapshots: (any SnapshotNaming)?

    /// `event` numbered, pictured when decided on `frame` (with its `objects`), and encoded.
    mutating func emit(_ event: DetectionEvent, frame: AnalysedFrame?, objects: [MetadataObject]) -> EmittedEvent {
        let id = numbering.nextID()
        let name = frame.flatMap { snapshots?.snapshotName(for: event, frame: $0) }
        let picture = frame.flatMap { snapshots?.snapshotPicture(for: event, frame: $0, objects: objects) }
        return EmittedEvent(event: event, id: id, line: encoder.encode(event, id: id, snapshot: name),
                            snapshot: name, snapshotPicture: picture)
    }
}

/// A sink that also makes events of its own, besides analysis (the clip recorder's `recording`
/// and `recording_failed`): the pipeline it is added to takes them in, gives them their stages
/// and hands them to every sink in order, the source included. A source never reaches into the
/// pipeline: the pipeline sets `onEvent` when the sink is added (`DetectionPipeline.addSink`).
public protocol EventSource: EventSink {
    /// Where the source's events go; set by the pipeline.
    var onEvent: (@Sendable (DetectionEvent) -> Void)? { get set }
}
