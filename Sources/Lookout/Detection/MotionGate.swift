/// Tells whether a frame differs from the last one the detectors analysed, cheaply: the luma
/// plane shrunk to 16x16-pixel block means (sampling every other pixel of every other row), and a
/// change when any block's mean moved by more than `threshold` grey levels. Block means smooth out
/// sensor noise; one block is enough for something small entering the view.
///
/// Used to skip detector work on a static scene: the detectors are deterministic, so an unchanged
/// frame gives the results of the last analysed one.
///
/// Blocks whose centre lies in a mask are not looked at: motion there (a screen, a swaying
/// plant) never counts as a change. Which blocks those are is worked out once per block grid.
struct MotionGate {
    static let blockSize = 16

    let threshold: Int
    private var reference: [UInt8] = []
    private var current: [UInt8] = []
    /// One row of blocks' pixel sums (scratch).
    private var sums: [UInt32] = []
    /// The reference's block grid: the same for a frame's full and half-size planes.
    private var referenceGrid = (columns: 0, rows: 0)
    /// The image the reference was made from: the session hands the same image again for a JPEG
    /// frame it found unchanged, and that needs no look at all.
    private var referenceIdentity: UInt64 = 0
    /// The blocks the last look found moved against the reference (all of them for a first
    /// frame or a new grid; none when the frame was unchanged).
    private(set) var changedBlocks = ChangedBlocks.everywhere

    /// Every pixel of a whole plane counts, not every other one of every other row.
    let samplesEveryPixel: Bool

    /// Parts of the frame (normalized) whose blocks are ignored.
    let masks: [RegionPolygon]
    /// Per block of `maskedGrid`, whether its centre lies in a mask; empty without masks.
    private var maskedBlocks: [Bool] = []
    private var maskedGrid = (columns: 0, rows: 0)

    /// - Parameter samplesEveryPixel: for a gate that sees both whole and half-size planes: a
    ///   half-size plane decoded by libjpeg keeps each block's true mean, which only a whole
    ///   plane sampled in full matches (within 1 grey level on the sample clip; sampling every
    ///   other pixel differs by up to 9 where codes have sharp edges).
    /// - Parameter masks: parts of the frame where motion does not count.
    init(threshold: Int, samplesEveryPixel: Bool = false, masks: [RegionPolygon] = []) {
        self.threshold = threshold
        self.samplesEveryPixel = samplesEveryPixel
        self.masks = masks
    }

    /// True when `image` differs from the reference, which it then becomes; false when it does not
    /// (the reference stays, so slow drifts add up until they count). `reduction` is how much
    /// smaller than its frame the plane is (1 or 2): blocks and sampling shrink with it, so a block
    /// still covers 16x16 pixels of the frame. Whole and half-size planes compare with each other
    /// only with `samplesEveryPixel`.
    mutating func hasChanged(_ image: PixelBuffer, reduction: Int = 1) -> Bool {
        if image.identity == referenceIdentity {
            changedBlocks.clear()
            return false
        }
        let blockSize = Self.blockSize / reduction, step = samplesEveryPixel ? 1 : max(1, 2 / reduction)
        let columns = (image.width + blockSize - 1) / blockSize
        let rows = (image.height + blockSize - 1) / blockSize
        if current.count != columns * rows {
            current = Array(repeating: 0, count: columns * rows)
        }
        if !masks.isEmpty && maskedGrid != (columns, rows) {
            maskBlocks(columns: columns, rows: rows, blockSize: blockSize, width: image.width, height: image.height)
        }
        let masked = maskedBlocks
        if sums.count != columns { sums = Array(repeating: 0, count: columns) }
        let base = image.baseAddress
        current.withUnsafeMutableBufferPointer { blocks in
            sums.withUnsafeMutableBufferPointer { sums in
                for row in 0..<rows {
                    let y0 = row * blockSize, y1 = min(y0 + blockSize, image.height)
                    sums.update(repeating: 0)
                    // Row by row, each block's run of pixels summed in one tight loop (vectorised
                    // when every pixel counts): this runs on every frame the code job takes.
                    var y = y0
                    while y < y1 {
                        let line = base.advanced(by: y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                        var x0 = 0
                        for column in 0..<columns {
                            let x1 = min(x0 + blockSize, image.width)
                            var sum: UInt32 = 0
                            if step == 1 {
                                for x in x0..<x1 { sum &+= UInt32(line[x]) }
                            } else {
                                for x in stride(from: x0, to: x1, by: step) { sum &+= UInt32(line[x]) }
                            }
                            sums[column] &+= sum
                            x0 = x1
                        }
                        y += step
                    }
                    let sampledRows = (y1 - y0 + step - 1) / step
                    var x0 = 0
                    for column in 0..<columns {
                        let x1 = min(x0 + blockSize, image.width)
                        let index = row * columns + column
                        // A masked block is 0 in every frame: it never differs.
                        if !masked.isEmpty && masked[index] {
                            blocks[index] = 0
                        } else {
                            let samples = UInt32(max(1, sampledRows * ((x1 - x0 + step - 1) / step)))
                            blocks[index] = UInt8(truncatingIfNeeded: sums[column] / samples)
                        }
                        x0 = x1
                    }
                }
            }
        }
        defer { referenceGrid = (columns, rows) }
        guard referenceGrid == (columns, rows), reference.count == current.count else {
            swap(&reference, &current)
            referenceIdentity = image.identity
            changedBlocks.reset(frameWidth: image.width * reduction, frameHeight: image.height * reduction)
            changedBlocks.markEverywhere()
            return true
        }
        // Every block is compared (not only up to the first that moved): detectors search
        // where blocks moved.
        changedBlocks.reset(frameWidth: image.width * reduction, frameHeight: image.height * reduction)
        current.withUnsafeBufferPointer { now in
            reference.withUnsafeBufferPointer { before in
                for index in 0..<now.count where abs(Int(now[index]) - Int(before[index])) > threshold {
                    changedBlocks.mark(column: index % columns, row: index / columns)
                }
            }
        }
        let changed = changedBlocks.count > 0
        if changed {
            swap(&reference, &current)
            referenceIdentity = image.identity
        }
        return changed
    }

    /// Marks the blocks of a grid whose centre lies in a mask. A whole and a half-size plane of
    /// one frame have the same grid and the same block centres (in fractions of the frame).
    private mutating func maskBlocks(columns: Int, rows: Int, blockSize: Int, width: Int, height: Int) {
        maskedGrid = (columns, rows)
        maskedBlocks = Array(repeating: false, count: columns * rows)
        for row in 0..<rows {
            let y0 = row * blockSize, y1 = min(y0 + blockSize, height)
            let y = Double(y0 + y1) / 2 / Double(height)
            for column in 0..<columns {
                let x0 = column * blockSize, x1 = min(x0 + blockSize, width)
                let x = Double(x0 + x1) / 2 / Double(width)
                maskedBlocks[row * columns + column] = masks.contains { $0.contains(x: x, y: y) }
            }
        }
    }
}
