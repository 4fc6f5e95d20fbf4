/// One record of an outbox segment file, and its encoding:
///
///     magic "LKOB" | body length (UInt32 LE) | CRC-32 of the body (UInt32 LE) | body
///     body: kind (UInt8) | sequence (UInt64 LE) | the kind's fields
///
/// The length and CRC tell a record written whole from a torn one (the file ends inside it) or a
/// damaged one; the magic lets a reader find the next whole record after damage.
enum OutboxRecord: Equatable {
    /// An event: its sequence, the wall clock in milliseconds when it was made (for the age
    /// bound), its topic and payload.
    case event(sequence: UInt64, wallTime: Int64, topic: String, payload: [UInt8])
    /// Every event up to `sequence` is done: acknowledged by the broker or dropped.
    case done(sequence: UInt64)
    /// The first record of a segment: the next sequence to give and the done mark when it was
    /// begun, so that neither goes back when older segments are deleted.
    case start(nextSequence: UInt64, done: UInt64)
    /// Sequences up to `through` may be given without another record first; synced before any
    /// is, with the kernel's boot ID: after a machine's crash, numbers lost with the unsynced
    /// tail are skipped rather than given again.
    case reserve(through: UInt64, boot: String)
    /// The journal was closed cleanly (everything synced) with `nextSequence` next.
    case closed(nextSequence: UInt64)

    static let magic: [UInt8] = Array("LKOB".utf8)
    static let headerBytes = 12
    /// Kind and sequence: what a torn record still tells when its header was written.
    static let bodyPrefixBytes = 9
    /// The largest body a reader believes: more is damage, not a record.
    static let maximumBodyBytes = 64 << 20

    private enum Kind: UInt8 { case event = 1, done = 2, start = 3, reserve = 4, closed = 5 }

    var sequence: UInt64 {
        switch self {
        case .event(let sequence, _, _, _), .done(let sequence), .start(let sequence, _), .reserve(let sequence, _), .closed(let sequence): sequence
        }
    }

    /// The bytes of an event record, without building the record.
    static func encodedEventBytes(topicBytes: Int, payloadBytes: Int) -> Int {
        headerBytes + bodyPrefixBytes + 8 + 2 + topicBytes + payloadBytes
    }

    func encoded() -> [UInt8] {
        var body: [UInt8] = []
        switch self {
        case .event(let sequence, let wallTime, let topic, let payload):
            body.reserveCapacity(Self.bodyPrefixBytes + 10 + topic.utf8.count + payload.count)
            body.append(Kind.event.rawValue)
            Self.append(sequence, to: &body)
            Self.append(UInt64(bitPattern: wallTime), to: &body)
            let topicBytes = Array(topic.utf8.prefix(Int(UInt16.max)))
            Self.append(UInt16(topicBytes.count), to: &body)
            body += topicBytes
            body += payload
        case .done(let sequence):
            body.append(Kind.done.rawValue)
            Self.append(sequence, to: &body)
        case .start(let nextSequence, let done):
            body.append(Kind.start.rawValue)
            Self.append(nextSequence, to: &body)
            Self.append(done, to: &body)
        case .reserve(let through, let boot):
            body.append(Kind.reserve.rawValue)
            Self.append(through, to: &body)
            body += Array(boot.utf8.prefix(64))
        case .closed(let nextSequence):
            body.append(Kind.closed.rawValue)
            Self.append(nextSequence, to: &body)
        }
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerBytes + body.count)
        Self.append(UInt32(body.count), to: &bytes)
        Self.append(OutboxChecksum.crc32(body[...]), to: &bytes)
        return bytes + body
    }

    /// What reading a segment found: its whole records with where they are, and the stretches
    /// that could not be read.
    struct Scan {
        var records: [(record: OutboxRecord, offset: Int, length: Int)] = []
        /// Unreadable stretches (offset, bytes), in order.
        var damaged: [(offset: Int, length: Int)] = []
        /// The end of the last whole record: past it, the file holds only damage.
        var end = 0
        /// The sequence a damaged event record's header still gives, the highest: an event that
        /// may have been published before its record was torn, whose number is not to be given again.
        var damagedSequence: UInt64?
    }

    /// Reads every whole record of `bytes`; after damage, goes on from the next whole record.
    static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        var position = 0
        var damageStart: Int?
        while position < bytes.count {
            if let (record, length) = decode(bytes, at: position) {
                if let start = damageStart {
                    scan.damaged.append((start, position - start))
                    damageStart = nil
                }
                scan.records.append((record, position, length))
                position += length
                scan.end = position
            } else {
                if damageStart == nil {
                    damageStart = position
                    if let hint = damagedEventSequence(bytes, at: position) {
                        scan.damagedSequence = max(scan.damagedSequence ?? 0, hint)
                    }
                }
                position = nextMagic(in: bytes, after: position) ?? bytes.count
            }
        }
        if let start = damageStart { scan.damaged.append((start, bytes.count - start)) }
        return scan
    }

    /// The record at `offset` and its length in bytes, or nil when none whole is there.
    static func decode(_ bytes: [UInt8], at offset: Int) -> (OutboxRecord, Int)? {
        guard offset + headerBytes <= bytes.count, bytes[offset..<offset + 4].elementsEqual(magic) else { return nil }
        let length = Int(readUInt32(bytes, offset + 4))
        guard length >= bodyPrefixBytes, length <= maximumBodyBytes, offset + headerBytes + length <= bytes.count else { return nil }
        let body = bytes[(offset + headerBytes)..<(offset + headerBytes + length)]
        guard OutboxChecksum.crc32(body) == readUInt32(bytes, offset + 8) else { return nil }
        let start = body.startIndex
        let sequence = readUInt64(bytes, start + 1)
        let record: OutboxRecord
        switch Kind(rawValue: bytes[start]) {
        case .event?:
            guard length >= bodyPrefixBytes + 10 else { return nil }
            let wallTime = Int64(bitPattern: readUInt64(bytes, start + 9))
            let topicLength = Int(readUInt16(bytes, start + 17))
            let topicStart = start + 19
            guard topicStart + topicLength <= body.endIndex else { return nil }
            record = .event(sequence: sequence, wallTime: wallTime,
                            topic: String(decoding: bytes[topicStart..<topicStart + topicLength], as: UTF8.self),
                            payload: Array(bytes[(topicStart + topicLength)..<body.endIndex]))
        case .done?:
            record = .done(sequence: sequence)
        case .start?:
            guard length >= bodyPrefixBytes + 8 else { return nil }
            record = .start(nextSequence: sequence, done: readUInt64(bytes, start + 9))
        case .reserve?:
            record = .reserve(through: sequence, boot: String(decoding: bytes[(start + 9)..<body.endIndex], as: UTF8.self))
        case .closed?:
            record = .closed(nextSequence: sequence)
        case nil:
            return nil
        }
        return (record, headerBytes + length)
    }

    /// The sequence of the event record whose header starts at `offset`, whole or not.
    static func damagedEventSequence(_ bytes: [UInt8], at offset: Int) -> UInt64? {
        let sequenceEnd = offset + headerBytes + bodyPrefixBytes
        guard sequenceEnd <= bytes.count, bytes[offset..<offset + 4].elementsEqual(magic),
              bytes[offset + headerBytes] == Kind.event.rawValue else { return nil }
        return readUInt64(bytes, offset + headerBytes + 1)
    }

    private static func nextMagic(in bytes: [UInt8], after offset: Int) -> Int? {
        var index = offset + 1
        while index + 4 <= bytes.count {
            if bytes[index] == magic[0], bytes[index + 1] == magic[1], bytes[index + 2] == magic[2], bytes[index + 3] == magic[3] {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readUInt16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }
}
