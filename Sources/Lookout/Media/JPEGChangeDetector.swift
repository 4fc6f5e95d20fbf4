/// Tells, before decoding, whether a JPEG frame differs from the last one decoded: both are
/// compared at 1/8 scale (libjpeg's DC-only decode, a small fraction of the full cost), by the
/// mean of each 16x16 block. The capture loop hands an unchanged frame the last decoded image
/// instead of decoding it, when every output takes such frames (`--motion-threshold`).
///
/// Once the scene has been still for `looksBeforeSkipping` looks in a row, only one frame in
/// `framesPerLookWhenStill` is looked at (the look, about 1 ms of entropy decoding for a 720p
/// frame, is most of what a static scene costs): a change is then seen on the frame it happens or
/// within the next two, 67 ms at 30 fps.
struct JPEGChangeDetector {
    /// A second at 30 fps.
    static let looksBeforeSkipping = 30
    static let framesPerLookWhenStill = 3
    private var reference: [UInt8] = []
    private var current: [UInt8] = []
    private var referenceSize = (width: 0, height: 0)
    private var unchangedLooks = 0
    private var skippedInARow = 0

    /// Forgets the reference (the next frame counts as changed).
    mutating func reset() {
        referenceSize = (0, 0)
        unchangedLooks = 0
        skippedInARow = 0
    }

    /// True when this frame may be taken as unchanged without a look: the scene has been still for
    /// a while and one of the last `framesPerLookWhenStill` frames was looked at.
    mutating func skipsLook() -> Bool {
        guard unchangedLooks >= Self.looksBeforeSkipping, skippedInARow < Self.framesPerLookWhenStill - 1 else {
            skippedInARow = 0
            return false
        }
        skippedInARow += 1
        return true
    }

    /// True when `jpeg` (of `width` x `height`) differs from the reference by more than
    /// `threshold` grey levels in some 16x16 block; it then becomes the reference.
    mutating func hasChanged(_ jpeg: UnsafeRawBufferPointer, width: Int, height: Int, threshold: Int,
                             decoder: JPEGDecoder) throws(MediaError) -> Bool {
        let size = JPEGDecoder.thumbnailSize(width: width, height: height)
        if current.count != size.width * size.height {
            current = Array(repeating: 0, count: size.width * size.height)
        }
        var failure: MediaError?
        current.withUnsafeMutableBytes { buffer in
            do throws(MediaError) {
                _ = try decoder.decodeLumaThumbnail(jpeg, width: width, height: height, into: buffer.baseAddress!)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        guard referenceSize == (width, height), reference.count == current.count else {
            swap(&reference, &current)
            referenceSize = (width, height)
            return true
        }
        // 2x2 thumbnail pixels are one 16x16 block, as the metadata output's motion gate measures.
        let changed = Self.anyBlockDiffers(current, reference, columns: size.width, rows: size.height,
                                           threshold: threshold)
        if changed {
            swap(&reference, &current)
            unchangedLooks = 0
        } else {
            unchangedLooks += 1
        }
        return changed
    }

    /// Runs on every frame of a static scene, so it works on raw pointers (no bounds checks).
    private static func anyBlockDiffers(_ now: [UInt8], _ before: [UInt8], columns: Int, rows: Int,
                                        threshold: Int) -> Bool {
        now.withUnsafeBufferPointer { a in
            before.withUnsafeBufferPointer { b in
                let a = a.baseAddress!, b = b.baseAddress!
                var row = 0
                while row < rows {
                    let secondRow = row + 1 < rows
                    var column = 0
                    while column < columns {
                        // The block's 1, 2 or 4 thumbnail pixels (the last row and column may be half).
                        let secondColumn = column + 1 < columns
                        let offset = row * columns + column
                        var difference = Int(a[offset]) - Int(b[offset]), pixels = 1
                        if secondColumn {
                            difference += Int(a[offset + 1]) - Int(b[offset + 1])
                            pixels += 1
                        }
                        if secondRow {
                            let below = offset + columns
                            difference += Int(a[below]) - Int(b[below])
                            pixels += 1
                            if secondColumn {
                                difference += Int(a[below + 1]) - Int(b[below + 1])
                                pixels += 1
                            }
                        }
                        if abs(difference) > threshold * pixels { return true }
                        column += 2
                    }
                    row += 2
                }
                return false
            }
        }
    }
}
