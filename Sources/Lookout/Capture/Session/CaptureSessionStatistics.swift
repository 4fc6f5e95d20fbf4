extension CaptureSession {
    /// Frame counts of the current or last run.
    public struct Statistics: Sendable, Equatable {
        /// Frames the input produced, damaged ones included.
        public var framesRead = 0
        /// Frames that reached at least one output.
        public var framesDelivered = 0
        /// Time to decode or convert each frame to luma (and to wait for a pool buffer when the
        /// input waits for its outputs).
        public var decodeTimes = TimingHistogram()
        /// Frames that arrived damaged.
        public var framesCorrupt = 0
        /// JPEG frames found unchanged before decoding and given the previous image.
        public var framesNotDecoded = 0
        /// JPEG frames decoded at half size, every output taking them reading no more.
        public var framesDecodedAtHalfSize = 0
        /// Frames an output wanted the picture of while every picture buffer was held.
        public var picturesUnavailable = 0
        /// Frame pictures copied for outputs that asked (`SampleBuffer.picture`).
        public var picturesCopied = 0
    }
}
