/// One Lookout process on a broker: its own connection for `<prefix>/available` (retained
/// "online", last will "offline"), and a connection per camera under `<prefix>/<camera>` with
/// the camera's availability, state, events, discovery and its own last will.
///
/// A fleet is several nodes on one broker, each with its own prefix and client ID: a node that
/// dies turns its own availability and its cameras' offline (the broker publishes their wills),
/// and nothing of the others'.
public final class MQTTNode: @unchecked Sendable {
    public let configuration: MQTTConfiguration
    private let publisher: MQTTEventPublisher
    private let diagnostics: @Sendable (String) -> Void
    private let undelivered = MQTTUndeliveredReport()

    /// Connects in the background; cameras' sinks come from `makeSink(camera:)`.
    public init(configuration: MQTTConfiguration, diagnostics: @escaping @Sendable (String) -> Void) throws(MQTTError) {
        var node = configuration
        node.camera = nil
        node.nodeAvailabilityTopic = nil
        self.configuration = node
        self.diagnostics = diagnostics
        publisher = try MQTTEventPublisher(configuration: node, diagnostics: diagnostics)
        publisher.start()
    }

    /// The sink that publishes `camera`'s events and state on a connection of its own, with a
    /// presence topic (and Home Assistant sensor) for each of `zones`.
    public func makeSink(camera: String, zones: [String] = []) throws(MQTTError) -> MQTTEventSink {
        undelivered.register(sender: "camera " + camera)
        return MQTTEventSink(publisher: try MQTTEventPublisher(configuration: configuration.forCamera(camera, zones: zones),
                                                               diagnostics: diagnostics),
                      diagnostics: diagnostics) { [undelivered] in undelivered.add(sender: "camera " + camera, $0) }
    }

    /// Publishes the node "offline" and disconnects, after the cameras' sinks have finished,
    /// within the stop's deadline; then says in one line per cause what was not delivered.
    public func stop() {
        if let own = publisher.stop() { undelivered.add(sender: "the node", own) }
        for line in undelivered.sentences(broker: configuration.broker) { diagnostics(line) }
    }
}
