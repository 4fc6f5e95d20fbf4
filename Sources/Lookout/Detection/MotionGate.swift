/// Tells whether a frame differs from the last one the detectors analysed, cheaply: the luma
/// plane shrunk to 16x16-pixel block means (sampling every other pixel of every other row), and a
/// change when any block's mean moved by more than `threshold` grey levels. Block means smooth out
/// sensor noise; one block is enough for something small entering the view.
///
/// Used to skip detector work on a static scene: the detectors are deterministic, so an unchanged
/// frame gives the results of the last analysed one.
struct MotionGate {
    static let blockSize = 16

    let threshold: Int
    private var reference: [UInt8] = []
    private var current: [UInt8] = []
    /// The reference's block grid: the same for a frame's full and half-size planes.
    private var referenceGrid = (columns: 0, rows: 0)
    /// The image the reference was made from: the session hands the same image again for a JPEG
    /// frame it found unchanged, and that needs no look at all.
    private var referenceIdentity: UInt64 = 0

    /// Every pixel of a whole plane counts, not every other one of every other row.
    let samplesEveryPixel: Bool

    /// - Parameter samplesEveryPixel: for a gate that sees both whole and half-size planes: a
    ///   half-size plane decoded by libjpeg keeps each block's true mean, which only a whole
    ///   plane sampled in full matches (within 1 grey level on the sample clip; sampling every
    ///   other pixel differs by up to 9 where codes have sharp edges).
    init(threshold: Int, samplesEveryPixel: Bool = false) {
        self.threshold = threshold
        self.samplesEveryPixel = samplesEveryPixel
    }

    /// True when `image` differs from the reference, which it then becomes; false when it does not
    /// (the reference stays, so slow drifts add up until they count). `reduction` is how much
    /// smaller than its frame the plane is (1 or 2): blocks and sampling shrink with it, so a block
    /// still covers 16x16 pixels of the frame. Whole and half-size planes compare with each other
    /// only with `samplesEveryPixel`.
    mutating func hasChanged(_ image: PixelBuffer, reduction: Int = 1) -> Bool {
        if image.identity == referenceIdentity { return false }
        let blockSize = Self.blockSize / reduction, step = samplesEveryPixel ? 1 : max(1, 2 / reduction)
        let columns = (image.width + blockSize - 1) / blockSize
        let rows = (image.height + blockSize - 1) / blockSize
        if current.count != columns * rows {
            current = Array(repeating: 0, count: columns * rows)
        }
        current.withUnsafeMutableBufferPointer { blocks in
            for row in 0..<rows {
                let y0 = row * blockSize, y1 = min(y0 + blockSize, image.height)
                for column in 0..<columns {
                    let x0 = column * blockSize, x1 = min(x0 + blockSize, image.width)
                    var sum = 0, n = 0
                    var y = y0
                    while y < y1 {
                        let line = image.baseAddress.advanced(by: y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                        var x = x0
                        while x < x1 {
                            sum += Int(line[x])
                            n += 1
                            x += step
                        }
                        y += step
                    }
                    blocks[row * columns + column] = UInt8(sum / max(1, n))
                }
            }
        }
        defer { referenceGrid = (columns, rows) }
        guard referenceGrid == (columns, rows), reference.count == current.count else {
            swap(&reference, &current)
            referenceIdentity = image.identity
            return true
        }
        var changed = false
        for index in current.indices where abs(Int(current[index]) - Int(reference[index])) > threshold {
            changed = true
            break
        }
        if changed {
            swap(&reference, &current)
            referenceIdentity = image.identity
        }
        return changed
    }
}
