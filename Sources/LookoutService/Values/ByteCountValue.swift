/// An amount of bytes on the command line or in the configuration file: `10G`, `500M`, `64MiB`, `4096k`, `1000000` (bytes).
/// K, M, G and T are powers of 1024, with or without a trailing `B` or `iB`.
public struct ByteCountValue: Sendable, Hashable, CustomStringConvertible {
    public var bytes: Int64

    public init(bytes: Int64) { self.bytes = bytes }

    public init?(argument: String) {
        var text = argument.uppercased()
        for suffix in ["IB", "B"] where text.hasSuffix(suffix) && text.count > suffix.count {
            text.removeLast(suffix.count)
            break
        }
        let scales: [Character: Double] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024, "T": 1024 * 1024 * 1024 * 1024]
        var scale = 1.0
        if let last = text.last, let unit = scales[last] {
            scale = unit
            text.removeLast()
        }
        guard let value = Double(text), value.isFinite, value >= 0, value * scale < 9e18 else { return nil }
        bytes = Int64((value * scale).rounded())
    }

    public var description: String {
        for (unit, scale) in [("T", Int64(1) << 40), ("G", Int64(1) << 30), ("M", Int64(1) << 20), ("K", Int64(1) << 10)] where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)"
    }


}
