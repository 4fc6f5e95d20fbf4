/// When a growing count of drops is worth a warning: the first, then one every `every` more, so a
/// long outage or a stuck consumer cannot flood standard error. One per counter, used where the
/// counter is (a queue or a lock).
struct DropWarning {
    let every: Int
    private var lastSaid = 0

    init(every: Int) {
        self.every = max(1, every)
    }

    /// Whether `dropped`, the count so far, is to be said now.
    mutating func shouldSay(_ dropped: Int) -> Bool {
        guard dropped > lastSaid, lastSaid == 0 || dropped - lastSaid >= every else { return false }
        lastSaid = dropped
        return true
    }
}
