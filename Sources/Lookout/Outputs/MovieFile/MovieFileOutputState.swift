extension MovieFileOutput {
    /// What the settings say, read by the writer for each frame.
    struct Settings {
        var maxRecordedDuration: MediaTime?
        var maxRecordedFileSize: Int64 = 0
        var movieFragmentInterval = MediaTime(seconds: 1)
        var preRollDuration = MediaTime.zero
    }

    /// Shared between the capture thread (appending frames) and the writer.
    struct Shared {
        var settings = Settings()
        var isRecording = false
        var path: String?
        var recordedDuration = MediaTime.zero
        var recordedFileSize: Int64 = 0
        var statistics = Statistics()
        /// Recordings asked for and not yet finished (start calls ahead of the writer included).
        var requests = 0
    }

    /// Counters of this output since it was made.
    public struct Statistics: Sendable, Equatable {
        public var recordingsFinished = 0
        public var recordingsFailed = 0
        public var framesWritten = 0
        /// Frames that should be in a file but are not (see `RecordedMovie.framesLost`).
        public var framesLost = 0
        /// Raw frames compressed to JPEG for the ring.
        public var framesCompressed = 0
        /// Bytes of frames in the ring now, the most it has held, and the memory it has touched.
        public var ringBytes = 0
        public var ringBytesPeak = 0
        public var ringBytesResident = 0
        public var ringCapacity = 0
    }
}
