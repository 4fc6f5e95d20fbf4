/// One recording of a `MovieFileOutput`, on its writer queue: where it goes, who is told, the
/// file once its first frame came, and what it holds so far.
struct MovieRecording {
    var path: String
    var folder: Folder
    var name: String
    var delegate: any FileOutputRecordingDelegate
    var file: MatroskaFileWriter?
    /// The ring's id of the next frame to write.
    var cursor: UInt64
    var endTime: MediaTime?
    var movie: RecordedMovie
    var lastSync = MediaTime.zero
    /// Milliseconds the newest frame lasts: until a second frame tells the real interval, a
    /// nominal 1/30 s, so that a clip stopped after one frame still has a duration (ffprobe
    /// shows none for 0).
    var lastDelta: Int64 = 33

    /// Opens the file at the first frame, `frame`, whose JPEG is `bytes` (its size from the JPEG
    /// header when the frame does not say). True when this frame opened it.
    mutating func openIfNeeded(for frame: CompressedFrameRing.Frame, bytes: UnsafeRawBufferPointer,
                               headerReader: JPEGDecoder) throws(RecordingError) -> Bool {
        guard file == nil else { return false }
        var (width, height) = (frame.width, frame.height)
        if width == 0 || height == 0 { (width, height) = (try? headerReader.size(of: bytes)) ?? (0, 0) }
        file = try MatroskaFileWriter(in: folder, named: name, width: width, height: height)
        movie.firstPresentationTime = frame.presentationTime
        movie.firstSequence = frame.sequence
        movie.width = width
        movie.height = height
        lastSync = frame.presentationTime
        return true
    }

    /// Writes `frame`, whose JPEG is `bytes`, into the file `openIfNeeded` opened; syncs every
    /// `fragmentInterval`.
    mutating func append(_ frame: CompressedFrameRing.Frame, bytes: UnsafeRawBufferPointer,
                         fragmentInterval: MediaTime) throws(RecordingError) {
        guard let file else { preconditionFailure("a frame appended to a recording whose file is not open") }
        let first = movie.firstPresentationTime.nanoseconds
        let milliseconds = (frame.presentationTime.nanoseconds - first + 500_000) / 1_000_000
        if movie.frameCount > 0 {
            let previous = (movie.lastPresentationTime.nanoseconds - first + 500_000) / 1_000_000
            lastDelta = max(0, milliseconds - previous)
        }
        try file.write(bytes, milliseconds: milliseconds, durationMilliseconds: lastDelta)
        movie.frameCount += 1
        movie.lastPresentationTime = frame.presentationTime
        movie.lastSequence = frame.sequence
        movie.lastWallClockTime = frame.wallClockTime
        movie.duration = MediaTime(nanoseconds: (milliseconds + lastDelta) * 1_000_000)
        if frame.presentationTime.nanoseconds - lastSync.nanoseconds >= fragmentInterval.nanoseconds {
            try file.sync()
            lastSync = frame.presentationTime
        }
    }
}
