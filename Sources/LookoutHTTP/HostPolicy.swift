/// Which `Host` and `Origin` a request may carry. Against DNS rebinding (a web page whose name
/// the attacker re-points at 127.0.0.1, so that the browser reads the camera as that page): on a
/// loopback address without a token only loopback names and the allowed hosts are served. Against
/// other sites' scripts: a request whose `Origin` is not this server's (nor an allowed host's, nor an
/// allowed origin) is refused, whatever the address.
public struct HostPolicy: Sendable, Equatable {
    /// Host names (or addresses) besides loopback ones the server answers to (`--http-allowed-host`).
    public var allowedHosts: [String]
    /// Only loopback hosts and `allowedHosts` may be named in `Host`.
    public var restrictsHost: Bool
    /// Other sites whose pages may use the API (`--http-allowed-origin`; `CrossOriginSharing`).
    public var allowedOrigins: [AllowedOrigin]

    public init(allowedHosts: [String] = [], restrictsHost: Bool, allowedOrigins: [AllowedOrigin] = []) {
        self.allowedHosts = allowedHosts.map { LoopbackHost.normalized($0) }
        self.restrictsHost = restrictsHost
        self.allowedOrigins = allowedOrigins
    }

    enum Verdict: Equatable {
        case allowed
        case wrongHost(String)
        case crossOrigin(String)
    }

    /// `host` is the `Host` header (nil for an HTTP/1.0 request without one), `origin` the `Origin`.
    func check(host: String?, origin: String?) -> Verdict {
        let requested = host.flatMap(Self.split)
        if restrictsHost, let requested, !LoopbackHost.contains(requested.host), !allowedHosts.contains(requested.host) {
            return .wrongHost(requested.host)
        }
        guard let origin else { return .allowed }
        if allowedOrigins.contains(where: { $0.matches(origin) }) { return .allowed }
        guard let from = Self.originAuthority(origin) else { return .crossOrigin(origin) }
        if allowedHosts.contains(from.host) { return .allowed }
        // The server speaks plain HTTP: its own pages' origin is http://HOST[:PORT]; a page behind
        // a TLS proxy names its host with --http-allowed-host.
        guard let requested, from.isPlainHTTP, requested.host == from.host, (requested.port ?? 80) == from.port else {
            return .crossOrigin(origin)
        }
        return .allowed
    }

    /// `name[:port]` or `[v6]:port` → host (lower case, no trailing dot, brackets kept off) and port.
    public static func split(_ authority: String) -> (host: String, port: Int?)? {
        var text = Substring(authority.lowercased())
        var port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()) else { return nil }
                port = value
            } else if !rest.isEmpty { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if let colon = text.lastIndex(of: ":") {
            guard let value = Int(text[text.index(after: colon)...]) else { return nil }
            port = value
            text = text[..<colon]
        }
        guard !text.isEmpty else { return nil }
        return (LoopbackHost.normalized(String(text)), port)
    }

    /// An `Origin` (`scheme://host[:port]`) as host and port, the scheme's default port when none;
    /// nil for `null` and anything else.
    static func originAuthority(_ origin: String) -> (host: String, port: Int, isPlainHTTP: Bool)? {
        let lower = origin.lowercased()
        let defaultPort: Int
        let rest: Substring
        if lower.hasPrefix("http://") {
            (defaultPort, rest) = (80, lower.dropFirst(7))
        } else if lower.hasPrefix("https://") {
            (defaultPort, rest) = (443, lower.dropFirst(8))
        } else {
            return nil
        }
        guard let (host, port) = split(String(rest)) else { return nil }
        return (host, port ?? defaultPort, defaultPort == 80)
    }
}
