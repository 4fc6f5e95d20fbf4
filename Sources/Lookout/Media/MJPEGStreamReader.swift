/// Reads an MJPEG elementary stream (concatenated JPEG images) frame by frame.
///
/// Frames are returned where they were read, and the bytes past them stay in place for the next
/// call: only when the buffer is full is the unread rest (part of a frame) moved to the other of
/// two buffers, so each frame is read once and seldom copied (the whole rest of each 256 KiB read
/// was moved after every frame: a fifth of what reading a static camera's file cost).
final class MJPEGStreamReader {
    enum Event {
        /// A complete JPEG image, valid until the next call.
        case jpeg(UnsafeRawBufferPointer)
        /// A damaged frame that was skipped.
        case corrupt(reason: String)
    }

    private let reader: FileDescriptorReader
    private var current: UnsafeMutableRawPointer
    private var spare: UnsafeMutableRawPointer
    private var capacity: Int
    private var spareCapacity: Int
    private var filled = 0
    private var consumed = 0
    private var atEndOfFile = false
    private var scanner = JPEGFrameScanner()

    private static let readChunk = 256 << 10

    /// `prefix` holds bytes already read from `reader` while sniffing the format.
    init(reader: FileDescriptorReader, prefix: [UInt8]) {
        self.reader = reader
        capacity = max(Self.readChunk * 2, prefix.count)
        spareCapacity = capacity
        current = .allocate(byteCount: capacity, alignment: 64)
        spare = .allocate(byteCount: spareCapacity, alignment: 64)
        prefix.withUnsafeBytes { current.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        filled = prefix.count
    }

    deinit {
        current.deallocate()
        spare.deallocate()
    }

    /// The next frame or damaged frame; nil at end of stream or on cancel.
    func next() throws(MediaError) -> Event? {
        scanner.reset()
        while true {
            // The scanner sees the unread bytes; its ranges count from `consumed`.
            let base = consumed
            let outcome = scanner.scan(UnsafeRawBufferPointer(start: current + base, count: filled - base))
            switch outcome {
            case .frame(let range):
                consumed = base + range.upperBound
                return .jpeg(UnsafeRawBufferPointer(start: current + base + range.lowerBound, count: range.count))
            case .corrupt(let range, let reason):
                consumed = base + max(range.upperBound, 1)
                return .corrupt(reason: reason)
            case .junk(let count):
                consumed = base + count
                scanner.reset()
            case .needMoreData:
                if atEndOfFile {
                    let truncated = scanner.isInsideFrame && filled - base - scanner.frameStart > 0
                    consumed = filled
                    discardConsumed()
                    return truncated ? .corrupt(reason: "stream ended inside a frame") : nil
                }
                if filled == capacity {
                    if consumed > 0 { discardConsumed() } else { growCurrent() }
                }
                switch try reader.read(into: current + filled, count: min(capacity - filled, Self.readChunk)) {
                case .bytes(let n): filled += n
                case .endOfFile: atEndOfFile = true
                case .cancelled: return nil
                }
            }
        }
    }

    /// Moves the unread bytes to the spare buffer and swaps buffers (the scanner starts over on them).
    private func discardConsumed() {
        guard consumed > 0 else { return }
        let tail = filled - consumed
        if spareCapacity < max(tail, capacity) {
            spare.deallocate()
            spareCapacity = max(tail, capacity)
            spare = .allocate(byteCount: spareCapacity, alignment: 64)
        }
        spare.copyMemory(from: current + consumed, byteCount: tail)
        swap(&current, &spare)
        swap(&capacity, &spareCapacity)
        filled = tail
        consumed = 0
        scanner.reset()
    }

    private func growCurrent() {
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 64)
        bigger.copyMemory(from: current, byteCount: filled)
        current.deallocate()
        current = bigger
        capacity *= 2
    }
}
