#if canImport(Glibc)
import Glibc
#endif

/// One file of an outbox journal, `segment-<number>.log`: records appended one write(2) each.
/// Opened for appending (the journal's newest) until `release()`; once released, `read` opens it
/// again, for reading only and never through a link, and keeps that descriptor until the next
/// `release()`: the journal holds one segment open to append and at most one more to read back,
/// however many segments there are.
final class OutboxSegment {
    let number: Int
    let path: String
    /// The journal's folder, that its name is looked up in (never through a link).
    private let folder: DirectoryHandle
    /// Open for appending until released; then nil, or open for reading only.
    private var file: FileDescriptor?
    private var appendable: Bool
    /// Bytes in the file.
    private(set) var bytes: Int64
    /// The highest event sequence in it, if any: once it is done, the segment can go.
    var lastEventSequence: UInt64?

    static func name(number: Int) -> String {
        let digits = String(number)
        return "segment-" + String(repeating: "0", count: max(0, 10 - digits.count)) + digits + ".log"
    }

    /// The number a file name gives, or nil for another file.
    static func number(fromName name: String) -> Int? {
        guard name.hasPrefix("segment-"), name.hasSuffix(".log") else { return nil }
        return Int(name.dropFirst(8).dropLast(4))
    }

    /// Opens the segment `number` in `folder`, creating it (empty, 0600) when `creating`: a
    /// regular file only, never through a link (a link there is `OutboxError.symbolicLink`).
    init(number: Int, in folder: DirectoryHandle, creating: Bool) throws(OutboxError) {
        let name = Self.name(number: number)
        path = folder.path + "/" + name
        let file: FileDescriptor
        do throws(Errno) {
            file = try folder.openAppending(named: name, creating: creating)
            bytes = try file.status().size
        } catch {
            throw OutboxError.opening(name, in: folder, error) { path, errno in .cannotWrite(path: path, errno) }
        }
        self.number = number
        self.folder = folder
        self.file = file
        appendable = true
    }

    /// Closes its descriptor (synced first by whoever appended): a later `read` opens it again.
    func release() {
        file = nil
        appendable = false
    }

    /// The descriptor to append, cut or sync with: only while open for appending.
    private func writer() throws(OutboxError) -> FileDescriptor {
        guard appendable, let file else { throw .cannotWrite(path: path, Errno(rawValue: EBADF)) }
        return file
    }

    /// The descriptor to read with: the one held, or the file opened again (read-only, never
    /// through a link) and held until `release()`.
    private func reader() throws(Errno) -> Int32 {
        if let file { return file.rawValue }
        let opened = try folder.openRegularFile(named: Self.name(number: number))
        file = opened
        return opened.rawValue
    }

    /// The whole file.
    func readAll() throws(OutboxError) -> [UInt8] {
        let descriptor: Int32
        do throws(Errno) { descriptor = try reader() } catch {
            throw OutboxError.opening(Self.name(number: number), in: folder, error) { path, errno in .cannotWrite(path: path, errno) }
        }
        var contents = [UInt8](repeating: 0, count: Int(bytes))
        var done = 0
        while done < contents.count {
            let count = contents.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { throw .cannotWrite(path: path, .current) }
                contents.removeLast(contents.count - done) // shorter than it was a moment ago
                break
            }
            done += count
        }
        return contents
    }

    /// `length` bytes at `offset`, or nil when they cannot be read whole; throws when the file
    /// cannot be opened again.
    func read(offset: Int64, length: Int) throws(Errno) -> [UInt8]? {
        let descriptor = try reader()
        var contents = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let count = contents.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, length - done, off_t(offset) + off_t(done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return contents
    }

    /// Appends `record` in one write(2) (more only when the kernel takes part of it).
    func append(_ record: [UInt8]) throws(OutboxError) {
        let file = try writer()
        do throws(Errno) {
            try file.writeAll(record)
        } catch {
            // Whatever part was written is cut off: the journal's end stays a record's end.
            _ = ftruncate(file.rawValue, off_t(bytes))
            throw .cannotWrite(path: path, error)
        }
        bytes += Int64(record.count)
    }

    /// Cuts the file at `length` bytes (a torn end).
    func truncate(to length: Int64) throws(OutboxError) {
        let descriptor = try writer().rawValue
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .cannotWrite(path: path, .current) }
        bytes = length
    }

    func sync() throws(OutboxError) {
        let descriptor = try writer().rawValue
        guard fdatasync(descriptor) == 0 else { throw .cannotWrite(path: path, .current) }
    }

    /// Deletes its name (`unlinkat` in its folder: whatever has the name now goes, a link's target is untouched).
    func remove() throws(OutboxError) {
        do throws(Errno) {
            try folder.remove(named: Self.name(number: number))
        } catch {
            if error.rawValue != ENOENT { throw .cannotWrite(path: path, error) }
        }
    }
}
