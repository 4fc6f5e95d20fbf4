import COpenCV

/// A still picture decoded to gray, for `lookout scan`: JPEG through TurboJPEG (as frames are),
/// PNG, PGM and the other formats OpenCV reads through its codecs. A file that is empty, no
/// picture, damaged or beyond the pixel budget is refused with one reason; the libraries' own
/// words go into the error's `detail`.
public enum StillImage {
    /// Reads and decodes the image at `path` into a pixel buffer of its own.
    /// - Parameters:
    ///   - path: a JPEG, PNG or any image OpenCV reads.
    ///   - budget: an image declaring more pixels is refused before it is decoded.
    ///   - capturesLibraryMessages: keep what image codecs print on standard error
    ///     (libpng does) in the error's `detail` instead. Descriptor 2 is the process's, so only
    ///     a caller that owns it should ask (a command line); other threads' messages would be
    ///     kept too.
    public static func load(path: String, budget: PixelBudget = .standard,
                            capturesLibraryMessages: Bool = false) throws(MediaError) -> PixelBuffer {
        let bytes = try readWholeFile(path: path)
        return try decode(bytes, path: path, budget: budget, capturesLibraryMessages: capturesLibraryMessages)
    }

    public static func decode(_ bytes: [UInt8], path: String, budget: PixelBudget = .standard,
                              capturesLibraryMessages: Bool = false) throws(MediaError) -> PixelBuffer {
        guard !bytes.isEmpty else { throw .unsupportedImage(path: path, reason: "is an empty file") }
        guard let format = ImageSignature.format(of: bytes) else {
            throw .unsupportedImage(path: path, reason: "is not an image (it starts with bytes \(MediaError.hex(bytes.prefix(8))))")
        }
        guard !ImageSignature.undecodable.contains(format) else {
            throw .unsupportedImage(path: path, reason: "is a \(format) image, which Lookout cannot decode")
        }
        if let size = ImageSignature.declaredSize(of: bytes, format: format), !budget.allows(width: size.width, height: size.height) {
            throw .unsupportedImage(path: path, reason: "cannot be decoded: " + budget.refusal(width: size.width, height: size.height))
        }
        let pool = BufferPool(count: 1)
        if format == "JPEG" {
            return try decodeJPEG(bytes, path: path, budget: budget, pool: pool)
        }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 1024)
        let status = bytes.withUnsafeBufferPointer {
            lk_image_decode_gray($0.baseAddress, $0.count, budget.maximumPixels, capturesLibraryMessages ? 1 : 0,
                                 &pixels, &width, &height, &message, message.count)
        }
        guard status == Int32(LK_IMAGE_OK), let pixels else {
            let detail = String(nulTerminated: message)
            switch status {
            case Int32(LK_IMAGE_TOO_LARGE):
                throw .unsupportedImage(path: path, reason: "cannot be decoded: it declares more than \(budget.allowance)", detail: detail)
            case Int32(LK_IMAGE_UNAVAILABLE):
                throw .unsupportedImage(path: path, reason: "cannot be decoded: \(detail)")
            default:
                throw .unsupportedImage(path: path, reason: "is a damaged or unsupported \(format) image", detail: detail)
            }
        }
        defer { lk_image_free(pixels) }
        let count = Int(width) * Int(height)
        let index = pool.acquire(capacity: count, wait: false)!
        pool.pointer(index).copyMemory(from: pixels, byteCount: count)
        return PixelBuffer(width: Int(width), height: Int(height), bytesPerRow: Int(width),
                           pool: pool, poolIndex: index)
    }

    private static func decodeJPEG(_ bytes: [UInt8], path: String, budget: PixelBudget, pool: BufferPool) throws(MediaError) -> PixelBuffer {
        let decoder = JPEGDecoder()
        let result: Result<PixelBuffer, MediaError> = bytes.withUnsafeBytes { jpeg in
            do throws(MediaError) {
                let size = try decoder.size(of: jpeg)
                guard budget.allows(width: size.width, height: size.height) else {
                    return .failure(.unsupportedImage(path: path, reason: "cannot be decoded: " + budget.refusal(width: size.width, height: size.height)))
                }
                let index = pool.acquire(capacity: size.width * size.height, wait: false)!
                let image = PixelBuffer(width: size.width, height: size.height, bytesPerRow: size.width,
                                        pool: pool, poolIndex: index)
                try decoder.decodeLuma(jpeg, width: size.width, height: size.height,
                                       into: pool.pointer(index), bytesPerRow: size.width)
                return .success(image)
            } catch {
                let detail: String
                if case .corruptImage(let reason) = error { detail = reason } else { detail = error.description }
                return .failure(.unsupportedImage(path: path, reason: "is a damaged or unsupported JPEG image", detail: detail))
            }
        }
        return try result.get()
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
