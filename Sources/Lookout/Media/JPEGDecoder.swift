import CTurboJPEG

/// Decodes JPEG images straight to their luma plane with libjpeg-turbo.
///
/// Asking TurboJPEG for `TJPF_GRAY` from a YCbCr JPEG makes libjpeg skip the chroma components'
/// inverse DCT and upsampling entirely, so the luma plane costs less than a full decode and no RGB
/// image ever exists. Frames without Huffman tables (common from webcams) decode with the standard
/// tables, which libjpeg-turbo supplies itself.
///
/// After any failure the decoder starts afresh: libjpeg-turbo 2.1's TurboJPEG leaves its
/// decompressor mid-header when a header cannot be parsed (a damaged SOF, an unsupported
/// precision), and every later image, however good, then fails too. One bad frame from a camera
/// must cost that frame only.
public final class JPEGDecoder {
    private var handle: tjhandle

    public init() {
        handle = Self.makeHandle()
    }

    private static func makeHandle() -> tjhandle {
        // Fails only when a few kilobytes cannot be allocated.
        guard let handle = tjInitDecompress() else { fatalError("tjInitDecompress failed: out of memory") }
        return handle
    }

    deinit { tjDestroy(handle) }

    /// The image size declared in the JPEG's frame header.
    public func size(of jpeg: UnsafeRawBufferPointer) throws(MediaError) -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = tjDecompressHeader3(handle, jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                         UInt(jpeg.count), &width, &height, &subsampling, &colorspace)
        guard status == 0 else { throw failure() }
        guard width > 0, height > 0 else { throw .corruptImage(reason: "the frame header declares no pixels") }
        return (Int(width), Int(height))
    }

    /// Decodes the luma plane into `destination` (`bytesPerRow * height` bytes). Any libjpeg
    /// warning (premature end, bad Huffman code, extraneous bytes) fails the frame: a half-grey
    /// image would only hide codes and invent nothing useful.
    ///
    /// `width` and `height` are the image's, or its `scaledSize` for a reduction of 2, 4 or 8:
    /// libjpeg then scales in the inverse DCT itself (a 4x4 transform per 8x8 block at half
    /// size), cheaper than a full decode and no resize afterwards.
    public func decodeLuma(_ jpeg: UnsafeRawBufferPointer, width: Int, height: Int,
                           into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws(MediaError) {
        let status = tjDecompress2(handle, jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                   destination.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(bytesPerRow),
                                   Int32(height), Int32(TJPF_GRAY.rawValue), 0)
        guard status == 0 else { throw failure() }
    }

    /// The size of the image decoded at 1/`reduction` scale (1, 2, 4 or 8), rounded up as
    /// libjpeg scales.
    public static func scaledSize(width: Int, height: Int, reduction: Int) -> (width: Int, height: Int) {
        ((width + reduction - 1) / reduction, (height + reduction - 1) / reduction)
    }

    /// Decodes the luma plane at 1/8 scale into `destination` (`thumbnailSize` bytes): libjpeg
    /// then computes only each 8x8 block's DC coefficient, a small fraction of a full decode.
    /// Returns the thumbnail's size.
    public func decodeLumaThumbnail(_ jpeg: UnsafeRawBufferPointer, width: Int, height: Int,
                                    into destination: UnsafeMutableRawPointer) throws(MediaError) -> (width: Int, height: Int) {
        let size = Self.thumbnailSize(width: width, height: height)
        let status = tjDecompress2(handle, jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                   destination.assumingMemoryBound(to: UInt8.self), Int32(size.width), Int32(size.width),
                                   Int32(size.height), Int32(TJPF_GRAY.rawValue), 0)
        guard status == 0 else { throw failure() }
        return size
    }

    /// The size of a 1/8-scale thumbnail, rounded up as libjpeg scales.
    public static func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int) {
        scaledSize(width: width, height: height, reduction: 8)
    }

    /// The error of the call that just failed; the handle is then replaced by a new one.
    private func failure() -> MediaError {
        let reason = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown JPEG error"
        tjDestroy(handle)
        handle = Self.makeHandle()
        return .corruptImage(reason: reason)
    }
}
