/// Home Assistant's status topic as one connection follows it. A live `online` there is a restart
/// of Home Assistant (or of its MQTT integration), after which it has forgotten what the broker
/// did not keep: the connection answers by sending everything retained again, its availability
/// first (the node's `<prefix>/available` on the node's connection), then a camera's discovery
/// configs and state.
///
/// Answers do not pile up: while one is in flight (retained state handed to libmosquitto and not
/// acknowledged yet, or waiting to be handed over), the `online`s that come make one more answer
/// once it is done, not one each. A thousand in a row make two or three, and the last one still
/// follows the last restart.
struct HomeAssistantStatus {
    let topic: String
    /// This connection says the restarts on standard error: the node's, which speaks for its
    /// cameras (each answers for itself, silently), or a camera's without a node.
    let speaks: Bool
    /// Retained state handed to libmosquitto and not acknowledged yet, by message ID.
    private var stateInFlight: Set<Int32> = []
    /// An `online` came while an answer was in flight: one more answer is due when it is done.
    private var answerDue = false

    init(discoveryPrefix: String, speaks: Bool) {
        topic = HomeAssistantDiscovery.statusTopic(discoveryPrefix: discoveryPrefix)
        self.speaks = speaks
    }

    /// Whether a message is Home Assistant saying it restarted. A retained `online` is its state
    /// from before this connection subscribed, and the connection has just sent everything.
    func isRestart(topic: String, payload: [UInt8], retained: Bool) -> Bool {
        !retained && topic == self.topic && payload.elementsEqual(HomeAssistantDiscovery.statusOnline.utf8)
    }

    /// Home Assistant restarted; `stateWaiting`: retained state waits to be handed over. True when
    /// the answer is to be sent now, false when it waits for the one in flight.
    mutating func restarted(stateWaiting: Bool) -> Bool {
        if stateWaiting || !stateInFlight.isEmpty {
            answerDue = true
            return false
        }
        return true
    }

    /// A retained state message was handed over as `messageID`.
    mutating func handedOver(_ messageID: Int32) {
        stateInFlight.insert(messageID)
    }

    /// The broker acknowledged `messageID`; true when an answer that waited is to be sent now.
    mutating func acknowledged(_ messageID: Int32, stateWaiting: Bool) -> Bool {
        guard stateInFlight.remove(messageID) != nil, answerDue, !stateWaiting, stateInFlight.isEmpty else { return false }
        answerDue = false
        return true
    }

    /// A new connection sends everything anyway: nothing is due, and what the last one had in
    /// flight is libmosquitto's to send again.
    mutating func connected() {
        stateInFlight.removeAll()
        answerDue = false
    }
}
