/// A place a pipeline's results go: standard output, MQTT, hooks, snapshot files, the HTTP event
/// stream. A pipeline hands every sink the same `PipelineOutput` values, in order, on its own
/// serial queue; a sink must return promptly (queue its own slow work, bounded) so that one slow
/// place never delays the others or detection.
public protocol EventSink: AnyObject, Sendable, StatisticsReporting {
    /// One analysed frame's results, or an input change (camera lost or found).
    func consume(_ output: PipelineOutput)
    /// The run is over: deliver what is still queued, within the sink's own time bound. Called
    /// once, off the pipeline's queue, after the last `consume`.
    func finish()
}

extension EventSink {
    public func finish() {}
    public func statisticsSection(camera: String?) -> StatisticsSection? { nil }
}

/// What a pipeline produced at one step: the lines standard output carries (detection lines, or
/// event lines with `--events changes`, in the chosen format; camera lost and found lines), the
/// events decided with their JSON lines, and the frame they came from with its objects.
public struct PipelineOutput: Sendable {
    /// Lines exactly as standard output writes them, newline included.
    public var lines: [[UInt8]] = []
    public var events: [EmittedEvent] = []
    /// The analysed frame (nil for an input change); its `picture` is set when pictures are attached.
    public var frame: AnalysedFrame?
    /// The objects found in that analysis.
    public var objects: [MetadataObject] = []
    /// Set when the input was just lost or found again.
    public var inputChange: InputChange?

    public init(lines: [[UInt8]] = [], events: [EmittedEvent] = [], frame: AnalysedFrame? = nil,
                objects: [MetadataObject] = [], inputChange: InputChange? = nil) {
        self.lines = lines
        self.events = events
        self.frame = frame
        self.objects = objects
        self.inputChange = inputChange
    }
}

/// The input going away or coming back (the `camera_lost` and `camera_found` lines).
public enum InputChange: Sendable {
    case lost(reason: String)
    case found(VideoFormatDescription)
}

/// An event as every sink sees it: the event, its id (`EventNumbering`), its JSON line (schema
/// version 1, newline included, the id its first key), and the name of its snapshot file when one
/// is being written. Every sink passes on these bytes and this id: the same event is the same
/// line on standard output, MQTT, hooks and the event stream.
public struct EmittedEvent: Sendable {
    public let event: DetectionEvent
    public let id: String?
    public let line: [UInt8]
    public let snapshot: String?
    /// The snapshot's picture, when snapshots are taken of this event: the file's bytes, and
    /// MQTT's `snapshot` topic.
    public let snapshotPicture: SnapshotPicture?

    public init(event: DetectionEvent, id: String? = nil, line: [UInt8], snapshot: String? = nil,
                snapshotPicture: SnapshotPicture? = nil) {
        self.event = event
        self.id = id
        self.line = line
        self.snapshot = snapshot
        self.snapshotPicture = snapshotPicture
    }
}
