import CMatroska

/// A Matroska file of JPEG frames, written by libavformat's muxer (`CMatroska`): the JPEG bytes
/// go in as they are. Frame times are milliseconds from the first frame, Matroska's own unit.
///
/// `sync()` ends the current cluster and syncs the file's data: what was written before it
/// survives SIGKILL and power loss. A file cut short has no index and no duration in its header;
/// ffprobe, ffplay and ffmpeg read it to its last synced cluster.
final class MatroskaFileWriter {
    let path: String
    private let folder: DirectoryHandle
    private let name: String
    private var writer: OpaquePointer?
    private var message = [CChar](repeating: 0, count: 512)

    /// Creates the file `name` in `folder` (a new file, never through a link: `O_EXCL|O_NOFOLLOW`
    /// on the folder's descriptor) and writes its header.
    init(in folder: Folder, named name: String, width: Int, height: Int) throws(RecordingError) {
        path = folder.description + "/" + name
        self.name = name
        let file: FileDescriptor
        do throws(Errno) {
            self.folder = try folder.open()
            file = try self.folder.createFile(named: name)
        } catch {
            throw .cannotCreate(path: path, reason: error.description, error)
        }
        var number: Int32 = 0
        let made = lk_mkv_create(file.release(), Int32(width), Int32(height), &message, message.count, &number)
        guard let made else {
            try? self.folder.remove(named: name) // made here a moment ago, header incomplete
            let reason = messageText
            if reason.hasPrefix("cannot load libavformat") { throw .libraryUnavailable(reason) }
            throw .cannotCreate(path: path, reason: number != 0 ? Errno(rawValue: number).description : reason,
                                number != 0 ? Errno(rawValue: number) : nil)
        }
        writer = made
    }

    /// Deletes the file (a recording that failed before its first frame leaves none): only the
    /// regular file this writer made, by its name in its folder.
    func remove() {
        try? folder.removeRegularFile(named: name)
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
