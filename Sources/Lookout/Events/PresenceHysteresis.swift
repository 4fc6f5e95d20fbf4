/// Presence with hysteresis, as motion and Frigate do it: on after `onCount` analyses with a face
/// within `onWindow`; off only after `offDelay` without any face. A face missed on a few frames
/// changes nothing.
struct PresenceHysteresis {
    let onCount: Int
    let onWindow: MediaTime
    let offDelay: MediaTime

    private(set) var isPresent = false
    private(set) var lastPositive: MediaTime?
    /// Times of recent positive analyses while absent (at most `onCount`).
    private var recentPositives: [MediaTime] = []

    init(onCount: Int, onWindow: MediaTime, offDelay: MediaTime) {
        self.onCount = max(1, onCount)
        self.onWindow = onWindow
        self.offDelay = offDelay
        recentPositives.reserveCapacity(self.onCount)
    }

    /// Feeds one analysis; returns the new state when it changed.
    mutating func update(facesFound: Bool, at time: MediaTime) -> Bool? {
        if facesFound {
            lastPositive = time
            guard !isPresent else { return nil }
            recentPositives.removeAll { time.nanoseconds - $0.nanoseconds > onWindow.nanoseconds }
            recentPositives.append(time)
            if recentPositives.count >= onCount {
                recentPositives.removeAll(keepingCapacity: true)
                isPresent = true
                return true
            }
            return nil
        }
        if isPresent, let lastPositive, time.nanoseconds - lastPositive.nanoseconds >= offDelay.nanoseconds {
            isPresent = false
            return false
        }
        return nil
    }

    /// Ends presence at once (the camera was lost); returns true when it was on.
    mutating func reset() -> Bool {
        recentPositives.removeAll(keepingCapacity: true)
        defer { isPresent = false }
        return isPresent
    }
}
