/// Turns a frame as delivered (JPEG, packed or planar YUV, gray) into the one thing detectors read:
/// a tightly packed 8-bit luma plane in a pool buffer. JPEG is decoded to luma only; planar formats
/// copy their first plane; packed 4:2:2 takes every other byte. Never an RGB detour.
final class LumaConverter {
    private let jpeg = JPEGDecoder()
    private var changes = JPEGChangeDetector()
    /// JPEG frames declaring more pixels are refused before anything is decoded.
    let pixelBudget: PixelBudget

    init(pixelBudget: PixelBudget = .standard) {
        self.pixelBudget = pixelBudget
    }

    /// The JPEG frame's size from its header, refused when it is beyond the budget.
    private func size(of bytes: UnsafeRawBufferPointer) throws(MediaError) -> (width: Int, height: Int) {
        let size = try jpeg.size(of: bytes)
        guard pixelBudget.allows(width: size.width, height: size.height) else {
            throw .corruptImage(reason: pixelBudget.refusal(width: size.width, height: size.height))
        }
        return size
    }

    /// True when a JPEG frame differs from the last one checked by at most `threshold` grey levels
    /// in every 16x16 block (compared at 1/8 scale, without a full decode). A changed frame
    /// becomes the reference. In a scene that has been still for a second, two frames in three
    /// are taken as unchanged without a look (see `JPEGChangeDetector`).
    func jpegIsUnchanged(_ bytes: UnsafeRawBufferPointer, threshold: Int) throws(MediaError) -> Bool {
        if changes.skipsLook() { return true }
        let size = try size(of: bytes)
        return !(try changes.hasChanged(bytes, width: size.width, height: size.height, threshold: threshold, decoder: jpeg))
    }

    /// Whether a JPEG frame declares this size: a frame given an earlier frame's image unlooked
    /// at must be that frame's size.
    func jpegHasSize(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws(MediaError) -> Bool {
        try size(of: bytes) == (width, height)
    }

    /// Forgets the reference frame of `jpegIsUnchanged`.
    func resetChangeDetection() {
        changes.reset()
    }

    /// What a conversion produced.
    enum Result {
        /// The luma plane, and the size of the frame it shows (the plane is smaller when the frame
        /// was decoded at a reduced scale).
        case image(PixelBuffer, width: Int, height: Int)
        /// No pool buffer was free (the holders are too slow) and waiting was not allowed.
        case outOfBuffers
    }

    /// Decodes a JPEG frame's luma plane at 1/`reduction(width, height)` scale (1 or 2), where
    /// `reduction` is asked with the frame's size once its header is read.
    func convertJPEG(_ bytes: UnsafeRawBufferPointer, pool: BufferPool, wait: Bool,
                     reduction: (_ width: Int, _ height: Int) -> Int = { _, _ in 1 }) throws(MediaError) -> Result {
        let size = try size(of: bytes)
        let plane = JPEGDecoder.scaledSize(width: size.width, height: size.height,
                                           reduction: reduction(size.width, size.height) >= 2 ? 2 : 1)
        guard let index = pool.acquire(capacity: plane.width * plane.height, wait: wait) else { return .outOfBuffers }
        do {
            try jpeg.decodeLuma(bytes, width: plane.width, height: plane.height, into: pool.pointer(index),
                                bytesPerRow: plane.width)
        } catch {
            pool.release(index)
            throw error
        }
        let image = PixelBuffer(width: plane.width, height: plane.height, bytesPerRow: plane.width,
                                pool: pool, poolIndex: index)
        return .image(image, width: size.width, height: size.height)
    }

    func convertRaw(_ bytes: UnsafeRawBufferPointer, format: VideoFormatDescription, bytesPerRow: Int,
                    pool: BufferPool, wait: Bool) throws(MediaError) -> Result {
        let width = format.width, height = format.height
        let bytesPerPixel = format.pixelFormat == .yuyv || format.pixelFormat == .uyvy ? 2 : 1
        guard pixelBudget.allows(width: width, height: height) else {
            throw .corruptImage(reason: pixelBudget.refusal(width: width, height: height))
        }
        guard bytesPerRow >= width * bytesPerPixel,
              bytes.count >= bytesPerRow * (height - 1) + width * bytesPerPixel else {
            throw .corruptImage(reason: "\(bytes.count) bytes is too short for a \(format) frame")
        }
        guard let index = pool.acquire(capacity: width * height, wait: wait) else { return .outOfBuffers }
        let destination = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch format.pixelFormat {
        case .yuyv, .uyvy:
            let lumaOffset = format.pixelFormat == .yuyv ? 0 : 1
            for y in 0..<height {
                let row = source + y * bytesPerRow + lumaOffset
                let out = destination + y * width
                for x in 0..<width { out[x] = row[2 * x] }
            }
        case .gray, .nv12, .nv21, .yuv420, .yuv422p, .yuv444p:
            if bytesPerRow == width {
                destination.update(from: source, count: width * height)
            } else {
                for y in 0..<height {
                    (destination + y * width).update(from: source + y * bytesPerRow, count: width)
                }
            }
        case .mjpeg:
            pool.release(index)
            throw .corruptImage(reason: "MJPEG frame handed over as raw pixels")
        }
        let image = PixelBuffer(width: width, height: height, bytesPerRow: width,
                                pool: pool, poolIndex: index)
        return .image(image, width: width, height: height)
    }
}
