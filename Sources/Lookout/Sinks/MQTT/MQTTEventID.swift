/// The unique id of an event published on a camera's `events` topic, `<node>/<camera>/<sequence>`,
/// by which consumers drop the duplicates of at-least-once delivery: the node's client ID, the
/// camera's name, and a number one higher for each event of the camera's connection, continued
/// across restarts by its outbox.
enum MQTTEventID {
    static func text(node: String, camera: String, sequence: UInt64) -> String {
        node + "/" + camera + "/" + String(sequence)
    }

    /// `line` (a JSON object) with `"id":"<id>"` as its first key; anything else is left as it is.
    static func splice(_ id: String, into line: [UInt8]) -> [UInt8] {
        guard line.first == UInt8(ascii: "{") else { return line }
        var spliced: [UInt8] = [UInt8(ascii: "{")]
        spliced.reserveCapacity(line.count + id.utf8.count + 8)
        spliced += Array("\"id\":\"".utf8)
        appendEscaped(id, to: &spliced)
        spliced.append(UInt8(ascii: "\""))
        let rest = line.dropFirst().drop { $0 == UInt8(ascii: " ") }
        if rest.first != UInt8(ascii: "}") { spliced.append(UInt8(ascii: ",")) }
        spliced += line.dropFirst()
        return spliced
    }

    /// JSON string escaping: quote, backslash and control characters.
    private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default:
                bytes.append(byte)
            }
        }
    }
}
