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

    /// The sink that publishes `camera`'s events and state on a connection of its own.
    public func makeSink(camera: String) throws(MQTTError) -> MQTTEventSink {
        MQTTEventSink(publisher: try MQTTEventPublisher(configuration: configuration.forCamera(camera), diagnostics: diagnostics),
                      diagnostics: diagnostics)
    }

    /// Publishes the node "offline" and disconnects; after the cameras' sinks have finished.
    public func stop() {
        publisher.stop()
    }
}
