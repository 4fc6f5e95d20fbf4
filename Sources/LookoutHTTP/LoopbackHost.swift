#if canImport(Glibc)
import Glibc
#endif

/// Whether a host (a name or an address, as in `--http` or a `Host` header) is this machine only:
/// `localhost`, an IPv4 address in 127.0.0.0/8, `::1`, or an IPv4-mapped 127/8 address. Addresses
/// are parsed, not matched by prefix: `127.0.0.1.example.com` is a name like any other.
enum LoopbackHost {
    static func contains(_ host: String) -> Bool {
        let name = normalized(host)
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true } // ::1
        // ::ffff:127.x.x.x
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// A host as compared: lower case, without a trailing dot or IPv6 brackets.
    static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name
    }
}
