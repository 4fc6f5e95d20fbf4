extension CaptureSession {
    /// Things a running session reports on its event queue.
    public enum Event: Sendable {
        /// Something failed while running; the session stops if it cannot go on.
        case runtimeError(CaptureError)
        /// A recorded input reached its end; every frame has been processed and reported.
        case inputDidEnd
        /// The input lost its frames (a camera unplugged or gone silent); the session keeps
        /// running and the input reconnects by itself (AVCaptureSessionWasInterrupted).
        case wasInterrupted(reason: String)
        /// Frames flow again after an interruption, in this format (AVCaptureSessionInterruptionEnded).
        case interruptionEnded(VideoFormatDescription)
        /// `count` frames in a row arrived damaged (each is also a `corrupt` drop); `reason` is
        /// the last one's. Posted when a run of damaged frames reaches 30, then 60, 120, ...: a
        /// camera sending nothing usable is said, not only counted.
        case framesDamaged(count: Int, reason: String)
        /// The session stopped (after `stopRunning()`, the end of input, or a fatal error).
        case didStopRunning
    }
}
