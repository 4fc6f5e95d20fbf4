/// The frame rate measured over the last three seconds, from counts of frames read sampled about
/// a second apart: what status and metrics say a camera delivers now.
struct FrameRateMeter {
    /// (MonotonicClock nanoseconds, frames read so far).
    private var samples: [(time: Int64, frames: Int)] = []
    private(set) var framesPerSecond = 0.0

    /// Whether a second has passed since the last sample (or none was taken).
    func isDue(at now: Int64) -> Bool {
        samples.last.map { now - $0.time >= 1_000_000_000 } ?? true
    }

    mutating func record(_ framesRead: Int, at now: Int64) {
        samples.append((now, framesRead))
        if samples.count > 4 { samples.removeFirst() }
        if let first = samples.first, let last = samples.last, last.time > first.time {
            framesPerSecond = Double(last.frames - first.frames) / (Double(last.time - first.time) / 1e9)
        }
    }
}
