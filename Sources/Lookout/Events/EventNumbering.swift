/// Gives each event of a camera its id, `<node>/<camera>/<number>`: the same on standard output,
/// MQTT, hooks, the event stream and in recording lines, so that consumers drop the duplicates
/// of at-least-once delivery and match one event across them. The node names the Lookout
/// installation (the service uses its MQTT client ID), the camera is named as in MQTT topics, and
/// the number is one higher for each event:
///
/// - with a state directory (`EventSequenceFile`), continued across restarts from where the last
///   run stopped (a crash skips at most one reserved block);
/// - without one, counted from the wall clock's microseconds at start, which keeps ids unique
///   across runs while the clock does not go back.
public struct EventNumbering: Sendable {
    public let node: String
    public let camera: String
    /// Where numbers are kept across runs; nil: counted from the clock at start.
    public let storage: EventSequenceFile?
    private var next: UInt64

    public init(node: String, camera: String, storage: EventSequenceFile? = nil) {
        self.node = node
        self.camera = camera
        self.storage = storage
        let now = WallClockTime.now()
        next = UInt64(max(1, now.seconds * 1_000_000 + Int64(now.nanoseconds / 1000)))
    }

    /// The next event's id.
    public mutating func nextID() -> String {
        let number: UInt64
        if let storage {
            number = storage.next()
        } else {
            number = next
            next += 1
        }
        return Self.id(node: node, camera: camera, number: number)
    }

    public static func id(node: String, camera: String, number: UInt64) -> String {
        node + "/" + camera + "/" + String(number)
    }
}
