import COpenCV

/// A still picture decoded to gray, for `lookout scan`: JPEG through TurboJPEG (as frames are),
/// PNG, PGM and the other formats OpenCV reads through its codecs.
public enum StillImage {
    /// Reads and decodes the image at `path` into a pixel buffer of its own.
    public static func load(path: String) throws(MediaError) -> PixelBuffer {
        let bytes = try readWholeFile(path: path)
        return try decode(bytes, path: path)
    }

    public static func decode(_ bytes: [UInt8], path: String) throws(MediaError) -> PixelBuffer {
        let pool = BufferPool(count: 1)
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF {
            let decoder = JPEGDecoder()
            let result: Result<PixelBuffer, MediaError> = bytes.withUnsafeBytes { jpeg in
                do throws(MediaError) {
                    let size = try decoder.size(of: jpeg)
                    let index = pool.acquire(capacity: size.width * size.height, wait: false)!
                    let image = PixelBuffer(width: size.width, height: size.height, bytesPerRow: size.width,
                                            baseAddress: pool.pointer(index), pool: pool, poolIndex: index)
                    try decoder.decodeLuma(jpeg, width: size.width, height: size.height,
                                           into: pool.pointer(index), bytesPerRow: size.width)
                    return .success(image)
                } catch {
                    return .failure(.unsupportedImage(path: path, reason: error.description))
                }
            }
            return try result.get()
        }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer {
            lk_image_decode_gray($0.baseAddress, $0.count, &pixels, &width, &height, &message, message.count)
        }
        guard status == 0, let pixels else {
            throw .unsupportedImage(path: path, reason: String(nulTerminated: message))
        }
        defer { lk_image_free(pixels) }
        let count = Int(width) * Int(height)
        let index = pool.acquire(capacity: count, wait: false)!
        pool.pointer(index).copyMemory(from: pixels, byteCount: count)
        return PixelBuffer(width: Int(width), height: Int(height), bytesPerRow: Int(width),
                           baseAddress: pool.pointer(index), pool: pool, poolIndex: index)
    }

    static func readWholeFile(path: String) throws(MediaError) -> [UInt8] {
        let reader = try FileDescriptorReader(path: path)
        var bytes = [UInt8]()
        let chunkSize = 1 << 16
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        while case .bytes(let n) = try reader.read(into: chunk, count: chunkSize) {
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: n))
        }
        return bytes
    }
}
