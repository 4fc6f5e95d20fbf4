/// The time events are decided on, for one queue's reports: it moves by the presentation-time
/// step between reports and never backwards (a clock that jumps back, a restarted stream, counts
/// as no time passing).
struct EventClock {
    private var now = MediaTime.zero
    private var lastPresentationTime: MediaTime?

    /// Moves the clock to a report of the frame at `time`; returns the clock's time.
    mutating func advance(to time: MediaTime) -> MediaTime {
        if let last = lastPresentationTime, time > last {
            now.nanoseconds += time.nanoseconds - last.nanoseconds
        }
        lastPresentationTime = time
        return now
    }

    /// A time of this clock as the stream's presentation time.
    func presentationTime(of time: MediaTime) -> MediaTime {
        guard let last = lastPresentationTime else { return time }
        return MediaTime(nanoseconds: last.nanoseconds - (now.nanoseconds - time.nanoseconds))
    }
}
