/// Tells, before decoding, whether a JPEG frame differs from the last one decoded: both are
/// compared at 1/8 scale (libjpeg's DC-only decode, a small fraction of the full cost), by the
/// mean of each 16x16 block. The capture loop hands an unchanged frame the last decoded image
/// instead of decoding it, when every output takes such frames (`--motion-threshold`).
struct JPEGChangeDetector {
    private var reference: [UInt8] = []
    private var current: [UInt8] = []
    private var referenceSize = (width: 0, height: 0)

    /// Forgets the reference (the next frame counts as changed).
    mutating func reset() {
        referenceSize = (0, 0)
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
        var changed = false
        let columns = size.width, rows = size.height
        outer: for row in stride(from: 0, to: rows, by: 2) {
            for column in stride(from: 0, to: columns, by: 2) {
                var now = 0, before = 0, n = 0
                for y in row..<min(row + 2, rows) {
                    for x in column..<min(column + 2, columns) {
                        now += Int(current[y * columns + x])
                        before += Int(reference[y * columns + x])
                        n += 1
                    }
                }
                if abs(now - before) > threshold * n {
                    changed = true
                    break outer
                }
            }
        }
        if changed { swap(&reference, &current) }
        return changed
    }
}
