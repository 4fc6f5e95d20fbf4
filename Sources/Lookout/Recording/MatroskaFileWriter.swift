import CMatroska

/// A Matroska file of JPEG frames, written by libavformat's muxer (`CMatroska`): the JPEG bytes
/// go in as they are. Frame times are milliseconds from the first frame, Matroska's own unit.
///
/// `sync()` ends the current cluster and syncs the file's data: what was written before it
/// survives SIGKILL and power loss. A file cut short has no index and no duration in its header;
/// ffprobe, ffplay and ffmpeg read it to its last synced cluster.
final class MatroskaFileWriter {
    let path: String
    private var writer: OpaquePointer?
    private var message = [CChar](repeating: 0, count: 512)

    /// Creates the file (never overwriting one) and writes its header.
    init(path: String, width: Int, height: Int) throws(RecordingError) {
        self.path = path
        var number: Int32 = 0
        let made = path.withPlatformPath { lk_mkv_create($0, Int32(width), Int32(height), &message, message.count, &number) }
        guard let made else {
            let reason = messageText
            if reason.hasPrefix("cannot load libavformat") { throw .libraryUnavailable(reason) }
            throw .cannotCreate(path: path, reason: number != 0 ? Errno(rawValue: number).description : reason,
                                number != 0 ? Errno(rawValue: number) : nil)
        }
        writer = made
    }

    deinit {
        if let writer { lk_mkv_finish(writer, 1, nil, nil, 0, nil) }
    }

    /// Bytes in the file so far (its final size once finished).
    var bytesWritten: Int64 { writer.map { lk_mkv_bytes_written($0) } ?? finalSize }
    private var finalSize: Int64 = 0

    func write(_ jpeg: UnsafeRawBufferPointer, milliseconds: Int64, durationMilliseconds: Int64) throws(RecordingError) {
        guard let writer else { return }
        var number: Int32 = 0
        let status = lk_mkv_write(writer, jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count,
                                  milliseconds, durationMilliseconds, &message, message.count, &number)
        if status != 0 { throw failure(number) }
    }

    func sync() throws(RecordingError) {
        guard let writer else { return }
        var number: Int32 = 0
        if lk_mkv_sync(writer, &message, message.count, &number) != 0 { throw failure(number) }
    }

    /// Writes the index and duration and closes the file; with `abandon`, only closes it (after a
    /// write failed: the file keeps what was synced).
    func finish(abandon: Bool = false) throws(RecordingError) {
        guard let writer else { return }
        self.writer = nil
        var number: Int32 = 0
        if lk_mkv_finish(writer, abandon ? 1 : 0, &finalSize, &message, message.count, &number) != 0 { throw failure(number) }
    }

    /// The shim's last message.
    private var messageText: String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func failure(_ number: Int32) -> RecordingError {
        .writeFailed(path: path, reason: number != 0 ? Errno(rawValue: number).description : messageText,
                     number != 0 ? Errno(rawValue: number) : nil)
    }
}
