import Synchronization

/// An 8-bit luma image that detectors read: the analogue of CVPixelBuffer, always one gray plane.
///
/// The memory belongs to a `BufferPool` buffer and goes back to the pool when the last holder of
/// this object lets go of it.
public final class PixelBuffer: Sendable {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    /// First byte of the top row.
    public var baseAddress: UnsafeRawPointer { UnsafeRawPointer(pool.pointer(poolIndex)) }

    /// Unique to this object in the process's life: the same identity means the same pixels.
    public let identity: UInt64
    private static let nextIdentity = Atomic<UInt64>(1)

    private let pool: BufferPool
    private let poolIndex: Int

    /// Wraps an acquired pool buffer, the plane from its first byte; it is released back to `pool`
    /// when this object is freed.
    package init(width: Int, height: Int, bytesPerRow: Int, pool: BufferPool, poolIndex: Int) {
        precondition(width > 0 && height > 0 && bytesPerRow >= width)
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pool = pool
        self.poolIndex = poolIndex
        self.identity = Self.nextIdentity.add(1, ordering: .relaxed).oldValue
    }

    deinit {
        pool.release(poolIndex)
    }

    /// The luma value at a pixel (for tests and diagnostics; detectors read the plane directly).
    public subscript(x: Int, y: Int) -> UInt8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height)
        return baseAddress.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self)
    }
}
