/// What kind of picture a file holds, from its first bytes, and the size its header declares
/// where that is cheap to read: enough to refuse a picture beyond the pixel budget, or a file that
/// is no picture at all, before a decoder sees it.
enum ImageSignature {
    /// The format's name, or nil when the bytes start like no format Lookout decodes.
    static func format(of bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if starts(Array("BM".utf8)) { return "BMP" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]) { return "PNM" }
        if starts(Array("PF".utf8)) || starts(Array("Pf".utf8)) { return "PFM" }
        if starts([0x59, 0xA6, 0x6A, 0x95]) { return "Sun raster" }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return "JPEG 2000" }
        if starts([0x76, 0x2F, 0x31, 0x01]) { return "OpenEXR" }
        if starts(Array("#?RADIANCE".utf8)) || starts(Array("#?RGBE".utf8)) { return "Radiance HDR" }
        return nil
    }

    /// Formats OpenCV 4.6 has no decoder for.
    static let undecodable: Set<String> = ["GIF"]

    /// The width and height a PNG, BMP or PNM header declares; nil for other formats (OpenCV's
    /// own limit, set to the same budget, refuses those) or a header too short to say.
    static func declaredSize(of bytes: [UInt8], format: String) -> (width: Int, height: Int)? {
        func bigEndian32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        func littleEndian32(_ offset: Int) -> Int32 {
            Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                  | UInt32(bytes[offset + 3]) << 24)
        }
        switch format {
        case "PNG" where bytes.count >= 24:
            return (bigEndian32(16), bigEndian32(20))
        case "BMP" where bytes.count >= 26:
            // A negative height means rows top-down: the size is its magnitude.
            return (Int(littleEndian32(18).magnitude), Int(littleEndian32(22).magnitude))
        case "PNM":
            return pnmSize(bytes)
        default:
            return nil
        }
    }

    /// The width and height tokens after "Pn", skipping whitespace and comments.
    private static func pnmSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var numbers = [Int]()
        var index = 2
        while numbers.count < 2, index < min(bytes.count, 4096) {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var value = 0
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    // Saturates: a declared size past Int is refused all the same.
                    value = value > Int.max / 20 ? Int.max / 2 : value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                numbers.append(value)
                continue
            }
            index += 1
        }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }
}
