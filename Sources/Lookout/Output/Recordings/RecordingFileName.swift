/// Clip file names: `20261124T010203.456Z-presence.mkv`. The UTC time of the event that started
/// the clip first (names sort by time), then what started it (`presence`, `code`, `always`), and
/// `-2`, `-3`, ... when a name is taken. Only characters safe in a URL and on any file system.
public enum RecordingFileName {
    public static func make(time: WallClockTime, kind: String, attempt: Int = 1) -> String {
        let stamp = time.rfc3339.filter { $0 != "-" && $0 != ":" }
        return "\(stamp)-\(kind)" + (attempt > 1 ? "-\(attempt)" : "") + ".mkv"
    }

    /// True for a name `make` gives: what retention deletes and what the web server may serve.
    public static func isRecording(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 24, bytes.count < 96, name.hasSuffix(".mkv") else { return false }
        guard bytes[0..<8].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes[8] == UInt8(ascii: "T") else { return false }
        return bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A)
            || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }
}
