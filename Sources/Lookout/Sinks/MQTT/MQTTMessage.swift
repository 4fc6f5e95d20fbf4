/// A message a publisher hands to libmosquitto (always QoS 1).
struct MQTTMessage {
    var topic: String
    var payload: [UInt8]
    var retain: Bool
}
