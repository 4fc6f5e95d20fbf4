/// Reports each code once per appearance: a code is new when it was not seen within the window
/// before this analysis. Codes are told apart by symbology and exact payload bytes.
struct CodeDeduplicator {
    private struct Key: Hashable {
        var type: MetadataObjectType
        var payload: [UInt8]
    }

    var window: MediaTime
    private var lastSeen: [Key: MediaTime] = [:]
    private var lastPruned = MediaTime.zero

    init(window: MediaTime) {
        self.window = window
    }

    /// The codes of one analysis at `time` that count as new reads.
    mutating func newCodes(in codes: [MachineReadableCodeObject], at time: MediaTime) -> [MachineReadableCodeObject] {
        var fresh: [MachineReadableCodeObject] = []
        for code in codes {
            let key = Key(type: code.type, payload: code.payload)
            if let seen = lastSeen[key], time.nanoseconds - seen.nanoseconds <= window.nanoseconds {
                // Still in view, or back within the window: the same read.
            } else if !fresh.contains(where: { $0.type == code.type && $0.payload == code.payload }) {
                fresh.append(code)
            }
            lastSeen[key] = time
        }
        prune(at: time)
        return fresh
    }

    /// Forgets codes gone for longer than the window, so a kiosk's memory stays flat however many
    /// codes it reads. Runs at most once per window.
    private mutating func prune(at time: MediaTime) {
        guard time.nanoseconds - lastPruned.nanoseconds > window.nanoseconds else { return }
        lastPruned = time
        lastSeen = lastSeen.filter { time.nanoseconds - $0.value.nanoseconds <= window.nanoseconds }
    }
}
