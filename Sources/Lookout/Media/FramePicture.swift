/// A frame's picture exactly as the input sent it, for outputs that show or keep the frame
/// (photos, snapshots, the web view): the JPEG bytes of an MJPEG frame, never re-encoded, or a raw
/// frame's planes (luma and chroma) in the camera's own layout.
///
/// The bytes live in a buffer of a small fixed pool (`CaptureSession.pictureBufferCount`) and go
/// back to it when the last holder lets go. Pictures are copied only for frames some output asked
/// for; when every buffer is held, frames simply come without one (`SampleBuffer.picture` is nil),
/// capture never waits.
public final class FramePicture: Sendable {
    /// The frame's size in pixels.
    public let width: Int
    public let height: Int
    /// `.mjpeg` for JPEG bytes; otherwise the raw layout of `bytes`.
    public let pixelFormat: PixelFormat
    /// Bytes between rows of the first plane of a raw frame (0 for JPEG).
    public let bytesPerRow: Int
    /// The picture's bytes: written once, before the picture is shared.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pool.pointer(poolIndex), count: count) }

    private let count: Int
    private let pool: BufferPool
    private let poolIndex: Int

    private init(width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int, count: Int,
                 pool: BufferPool, poolIndex: Int) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.count = count
        self.pool = pool
        self.poolIndex = poolIndex
    }

    /// A picture that owns a copy of `bytes` (tests, stills), in a pool of its own.
    public convenience init(copying bytes: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int = 0) {
        let pool = BufferPool(count: 1)
        let index = bytes.withUnsafeBytes { Self.place($0, in: pool) }! // its one buffer is free
        self.init(width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                  count: bytes.count, pool: pool, poolIndex: index)
    }

    deinit {
        pool.release(poolIndex)
    }

    /// True when the picture is the input's own JPEG.
    public var isJPEG: Bool { pixelFormat == .mjpeg }

    /// Copies a frame's bytes into a free buffer of `pool`; nil when none is free.
    static func copy(_ source: UnsafeRawBufferPointer, width: Int, height: Int, pixelFormat: PixelFormat,
                     bytesPerRow: Int, into pool: BufferPool) -> FramePicture? {
        guard let index = place(source, in: pool) else { return nil }
        return FramePicture(width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                            count: source.count, pool: pool, poolIndex: index)
    }

    /// A free buffer of `pool` holding a copy of `source`; nil when none is free.
    private static func place(_ source: UnsafeRawBufferPointer, in pool: BufferPool) -> Int? {
        guard let index = pool.acquire(capacity: max(1, source.count), wait: false) else { return nil }
        if let base = source.baseAddress { pool.pointer(index).copyMemory(from: base, byteCount: source.count) }
        return index
    }
}

extension FramePicture: Equatable {
    /// The same picture object: pictures are compared by identity, not by pixels.
    public static func == (lhs: FramePicture, rhs: FramePicture) -> Bool { lhs === rhs }
}
