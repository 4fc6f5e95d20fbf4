import Logging

/// One Lookout process on a broker: its own connection for `<prefix>/available` (retained
/// "online", last will "offline"), and a connection per camera under `<prefix>/<camera>` with
/// the camera's availability, state, events, discovery and its own last will.
///
/// A fleet is several nodes on one broker, each with its own prefix and client ID: a node that
/// dies turns its own availability and its cameras' offline (the broker publishes their wills),
/// and nothing of the others'.
public final class MQTTNode: Sendable {
    public let configuration: MQTTConfiguration
    private let publisher: MQTTEventPublisher
    private let logger: Logger
    private let undelivered = MQTTUndeliveredReport()

    /// Connects in the background; cameras' sinks come from `makeSink(camera:)`.
    public convenience init(configuration: MQTTConfiguration, diagnostics: @escaping @Sendable (String) -> Void) throws(MQTTError) {
        try self.init(configuration: configuration, logger: DiagnosticsLogHandler.logger("lookout.mqtt", diagnostics))
    }

    /// Connects in the background; what happens to the connections goes to `logger`.
    public init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
        var node = configuration
        node.camera = nil
        node.nodeAvailabilityTopic = nil
        self.configuration = node
        self.logger = logger
        publisher = try MQTTEventPublisher(configuration: node, logger: logger)
        publisher.start()
    }

    /// The sink that publishes `camera`'s events and state on a connection of its own, with a
    /// presence topic (and Home Assistant sensor) for each of `zones`.
    public func makeSink(camera: String, zones: [String] = []) throws(MQTTError) -> MQTTEventSink {
        undelivered.register(sender: "camera " + camera)
        return MQTTEventSink(publisher: try MQTTEventPublisher(configuration: configuration.forCamera(camera, zones: zones),
                                                               logger: logger),
                      diagnostics: { [logger] in logger.warning("\($0)") }) { [undelivered] in undelivered.add(sender: "camera " + camera, $0) }
    }

    /// Publishes the node "offline" and disconnects, after the cameras' sinks have finished,
    /// within the stop's deadline; then says in one line per cause what was not delivered.
    public func stop() {
        if let own = publisher.stop() { undelivered.add(sender: "the node", own) }
        for line in undelivered.sentences(broker: configuration.broker) { logger.warning("\(line)") }
    }
}
