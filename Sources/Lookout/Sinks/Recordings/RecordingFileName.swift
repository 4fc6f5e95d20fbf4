/// Clip file names: `20261124T010203.456Z-presence.mkv`. The UTC time of the event that started
/// the clip first (names sort by time), then what started it (`presence`, `code`, `always`), and
/// `-2`, `-3`, ... when a name is taken. Only characters safe in a URL and on any file system.
public enum RecordingFileName {
    public static func make(time: WallClockTime, kind: String, attempt: Int = 1) -> String {
        let stamp = SnapshotFileName.compactStamp(time)
        return "\(stamp)-\(kind)" + (attempt > 1 ? "-\(attempt)" : "") + ".mkv"
    }

    /// True for a name `make` gives: what retention deletes and what the web server may serve.
    public static func isRecording(_ name: String) -> Bool {
        name.utf8.count < 96 && name.hasSuffix(".mkv") && !name.contains("_") && SnapshotFileName.isStampedName(name)
    }
}
