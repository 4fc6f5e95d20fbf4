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
        let snapshot = frame.flatMap { snapshots?.snapshot(for: event, frame: $0, objects: objects) }
        return EmittedEvent(event: event, id: id, line: encoder.encode(event, id: id, snapshot: snapshot?.name),
                            snapshot: snapshot?.name, snapshotPicture: snapshot?.picture)
    }
}
