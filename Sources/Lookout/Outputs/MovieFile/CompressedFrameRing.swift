/// The recent frames of a stream as JPEG bytes, in one buffer of a fixed size: the pre-roll a
/// recording starts with, and the frames a recording's writer has yet to write.
///
/// Memory never passes `capacity` bytes, whatever the frame rate or frame size: a frame that does
/// not fit pushes out the oldest ones. Frames older than `retention` behind the newest go too,
/// unless a recording still has to write them (`firstUnwritten`). The buffer is allocated at the
/// first frame; the space it really uses grows to about twice the retained frames' bytes, because
/// writing goes back to the start of the buffer as soon as the frames there are gone.
///
/// Not thread-safe: `MovieFileOutput` holds it behind a lock.
final class CompressedFrameRing {
    /// One frame in the ring.
    struct Frame {
        /// Counts frames appended, from 0: the writer's cursor.
        var id: UInt64
        var offset: Int
        var length: Int
        var sequence: UInt64
        var presentationTime: MediaTime
        var wallClockTime: WallClockTime
        var width: Int
        var height: Int
    }

    let capacity: Int
    var retention: MediaTime
    private var storage: UnsafeMutableRawPointer?
    private var frames: [Frame] = [] // oldest first
    private(set) var nextID: UInt64 = 0
    /// Bytes of the frames from `firstUnwritten` on: what a recording has yet to write.
    var unwrittenBytes: Int {
        guard let firstUnwritten else { return 0 }
        var total = 0
        for frame in frames.reversed() {
            if frame.id < firstUnwritten { break }
            total += frame.length
        }
        return total
    }

    /// Forgets every frame (the stream's clock may start afresh after this).
    func removeAll() {
        frames.removeAll(keepingCapacity: true)
        bytes = 0
    }

    /// Frames pushed out before a recording wrote them.
    private(set) var overrun = 0
    /// Frames larger than the whole ring, never kept.
    private(set) var tooLarge = 0
    /// The first frame a recording still has to write; frames from it on outlive `retention`.
    var firstUnwritten: UInt64?

    init(capacity: Int, retention: MediaTime) {
        self.capacity = max(1, capacity)
        self.retention = retention
        frames.reserveCapacity(1024)
    }

    deinit { storage?.deallocate() }

    var count: Int { frames.count }
    var isEmpty: Bool { frames.isEmpty }
    var oldest: Frame? { frames.first }
    var newest: Frame? { frames.last }
    /// Bytes held by the frames in the ring.
    private(set) var bytes = 0
    /// Bytes of the buffer touched so far (resident memory), at most `capacity`.
    private(set) var touched = 0

    /// Copies a frame in, pushing out what it must; returns its id, or nil for a frame larger
    /// than the ring.
    @discardableResult
    func append(_ jpeg: UnsafeRawBufferPointer, sequence: UInt64, presentationTime: MediaTime,
                         wallClockTime: WallClockTime, width: Int, height: Int) -> UInt64? {
        let length = jpeg.count
        guard length > 0, length <= capacity else {
            tooLarge += 1
            return nil
        }
        if storage == nil { storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64) }
        expire(before: MediaTime(nanoseconds: presentationTime.nanoseconds &- retention.nanoseconds))
        let offset = place(length)
        storage!.advanced(by: offset).copyMemory(from: jpeg.baseAddress!, byteCount: length)
        touched = max(touched, offset + length)
        let frame = Frame(id: nextID, offset: offset, length: length, sequence: sequence, presentationTime: presentationTime,
                          wallClockTime: wallClockTime, width: width, height: height)
        frames.append(frame)
        bytes += length
        nextID += 1
        return frame.id
    }

    /// Where a frame of `length` bytes goes, after pushing out the oldest frames in its way.
    private func place(_ length: Int) -> Int {
        while let first = frames.first, let last = frames.last {
            let head = last.offset + last.length
            if last.offset >= first.offset {
                // Not wrapped: free space after the newest frame, and before the oldest.
                // Go back to the start once the frames there are gone and the buffer already
                // holds twice what is kept: the touched part stays small.
                let restartEarly = first.offset >= length && head >= 2 * bytes + length
                if head + length <= capacity && !restartEarly { return head }
                if first.offset >= length { return 0 }
            } else if head + length <= first.offset {
                return head // wrapped: the space between the newest frame and the oldest
            }
            removeOldest()
        }
        return 0
    }

    private func removeOldest() {
        let removed = frames.removeFirst()
        bytes -= removed.length
        if let firstUnwritten, removed.id >= firstUnwritten { overrun += 1 }
    }

    /// Drops frames presented before `time` that no recording needs.
    private func expire(before time: MediaTime) {
        while let first = frames.first, first.presentationTime < time,
              firstUnwritten.map({ first.id < $0 }) ?? true {
            removeOldest()
        }
    }

    /// The frame with `id`, when it is still in the ring.
    func frame(_ id: UInt64) -> Frame? {
        guard let first = frames.first, id >= first.id, id < nextID else { return nil }
        return frames[Int(id - first.id)]
    }

    /// The id of the oldest frame presented at or after `time` (the newest frame's next id when none is).
    func firstID(presentedFrom time: MediaTime) -> UInt64 {
        frames.first { $0.presentationTime >= time }?.id ?? nextID
    }

    /// Copies frame `id`'s bytes into `destination` (grown when needed, never shrunk).
    func copy(_ frame: Frame, into destination: inout [UInt8]) {
        if destination.count < frame.length { destination = [UInt8](repeating: 0, count: frame.length) }
        destination.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: storage!.advanced(by: frame.offset), byteCount: frame.length) }
    }
}
