/// When a metadata output's next face analysis (or code second pass) is due: at most `rate` a second of stream time
/// (every frame for 0). Read and moved on the code queue, or on the capture thread while the code
/// queue is idle.
struct AnalysisSchedule {
    private(set) var lastAnalysis: MediaTime?

    /// True when an analysis is due for a frame at `time`.
    func isDue(at time: MediaTime, rate: Double) -> Bool {
        let interval = rate > 0 ? 1 / rate : 0
        // A little slack, so that 10 a second from 30 fps is every third frame, not fourth.
        return lastAnalysis.map { time < $0 || Double(time.nanoseconds - $0.nanoseconds) / 1e9 >= interval * 0.9 } ?? true
    }

    mutating func analysed(at time: MediaTime) {
        lastAnalysis = time
    }
}
