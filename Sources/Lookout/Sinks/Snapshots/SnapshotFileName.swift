/// Snapshot file names: `20261124T010203.456Z-f000123-1-code.jpg`. The UTC time of the frame first
/// (so names sort by time, and `ls` lists them in order), then the frame's sequence number, the
/// event's place among the frame's events (1, 2, ...: names sort as events came) and its kind.
/// Only characters safe in a URL and on any file system.
public enum SnapshotFileName {
    public static func make(time: WallClockTime, sequence: UInt64, index: Int, kind: String) -> String {
        let stamp = compactStamp(time)
        var frame = String(sequence)
        if frame.count < 6 { frame = String(repeating: "0", count: 6 - frame.count) + frame }
        return "\(stamp)-f\(frame)-\(index)-\(kind).jpg"
    }

    /// The clean copy's name (`--snapshot-clean`): `<name>.clean.jpg`.
    public static func cleanCopy(of name: String) -> String {
        String(name.dropLast(4)) + ".clean.jpg"
    }

    /// True for a snapshot's name (not a clean copy, not a temporary file): what the keep limit
    /// counts and what the web server may serve.
    public static func isSnapshot(_ name: String) -> Bool {
        name.count < 128 && name.hasSuffix(".jpg") && !name.hasSuffix(".clean.jpg") && isStampedName(name)
    }

    /// `2026-11-24T01:02:03.456Z` as `20261124T010203.456Z`: the start of snapshot and clip names.
    static func compactStamp(_ time: WallClockTime) -> String {
        time.rfc3339.filter { $0 != "-" && $0 != ":" }
    }

    /// True for a name that starts with a compact stamp and holds only letters, digits, `-`, `_`
    /// and `.`: no slash, nothing a URL or a file system treats specially.
    static func isStampedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 24, bytes[0..<8].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes[8] == UInt8(ascii: "T") else { return false }
        return bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A)
            || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    /// True for a snapshot's name or its clean copy's.
    public static func isServable(_ name: String) -> Bool {
        isSnapshot(name) || (name.hasSuffix(".clean.jpg") && isSnapshot(String(name.dropLast(10)) + ".jpg"))
    }
}
