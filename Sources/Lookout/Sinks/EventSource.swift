/// A sink that also makes events of its own, besides analysis (the clip recorder's `recording`
/// and `recording_failed`): the pipeline it is added to takes them in, gives them their stages
/// and hands them to every sink in order, the source included. A source never reaches into the
/// pipeline: the pipeline sets `onEvent` when the sink is added (`DetectionPipeline.addSink`).
public protocol EventSource: EventSink {
    /// Where the source's events go; set by the pipeline.
    var onEvent: (@Sendable (DetectionEvent) -> Void)? { get set }
}
