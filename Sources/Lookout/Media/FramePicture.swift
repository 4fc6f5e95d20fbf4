/// A frame's picture exactly as the input sent it, for outputs that show or keep the frame
/// (photos, snapshots, the web view): the JPEG bytes of an MJPEG frame, never re-encoded, or a raw
/// frame's planes (luma and chroma) in the camera's own layout.
///
/// The bytes live in a buffer of a small fixed pool (`CaptureSession.pictureBufferCount`) and go
/// back to it when the last holder lets go. Pictures are copied only for frames some output asked
/// for; when every buffer is held, frames simply come without one (`SampleBuffer.picture` is nil),
/// capture never waits.
// @unchecked: its memory is written once, before the picture is shared, and freed in deinit.
public final class FramePicture: @unchecked Sendable {
    /// The frame's size in pixels.
    public let width: Int
    public let height: Int
    /// `.mjpeg` for JPEG bytes; otherwise the raw layout of `bytes`.
    public let pixelFormat: PixelFormat
    /// Bytes between rows of the first plane of a raw frame (0 for JPEG).
    public let bytesPerRow: Int
    public let bytes: UnsafeRawBufferPointer

    private let pool: BufferPool?
    private let poolIndex: Int

    init(width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int, bytes: UnsafeRawBufferPointer,
         pool: BufferPool?, poolIndex: Int) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.bytes = bytes
        self.pool = pool
        self.poolIndex = poolIndex
    }

    /// A picture that owns a copy of `bytes` (tests, stills): outside any pool.
    public convenience init(copying bytes: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int = 0) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        self.init(width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                  bytes: UnsafeRawBufferPointer(rebasing: memory[0..<bytes.count]), pool: nil, poolIndex: -1)
        ownsMemory = memory
    }

    private var ownsMemory: UnsafeMutableRawBufferPointer?

    deinit {
        ownsMemory?.deallocate()
        pool?.release(poolIndex)
    }

    /// True when the picture is the input's own JPEG.
    public var isJPEG: Bool { pixelFormat == .mjpeg }

    /// Copies a frame's bytes into a free buffer of `pool`; nil when none is free.
    static func copy(_ source: UnsafeRawBufferPointer, width: Int, height: Int, pixelFormat: PixelFormat,
                     bytesPerRow: Int, into pool: BufferPool) -> FramePicture? {
        guard let index = pool.acquire(capacity: max(1, source.count), wait: false) else { return nil }
        let destination = pool.pointer(index)
        if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: source.count) }
        return FramePicture(width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
                            bytes: UnsafeRawBufferPointer(start: destination, count: source.count),
                            pool: pool, poolIndex: index)
    }
}

extension FramePicture: Equatable {
    /// The same picture object: pictures are compared by identity, not by pixels.
    public static func == (lhs: FramePicture, rhs: FramePicture) -> Bool { lhs === rhs }
}
