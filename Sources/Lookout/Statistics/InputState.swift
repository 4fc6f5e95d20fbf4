/// Where a pipeline's input stands: what `/healthz` answers from and the status shows.
public enum InputState: String, Sendable {
    /// Started, no frame yet.
    case starting
    /// Frames arrive.
    case streaming
    /// A camera lost its frames; the input is reconnecting.
    case lost
    /// A recorded input reached its end.
    case ended
    /// The run stopped (a signal, an error, or the reader of standard output went away).
    case stopped

    /// True while frames arrive or may still (a camera starting or streaming, a file being read,
    /// or a file read to its end): false only for a lost camera or a stopped run.
    public var isHealthy: Bool {
        switch self {
        case .starting, .streaming, .ended: return true
        case .lost, .stopped: return false
        }
    }
}
