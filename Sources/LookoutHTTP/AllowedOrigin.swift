#if canImport(Glibc)
import Glibc
#endif

/// An origin whose pages may read the API with CORS (`--http-allowed-origin`): `scheme://host[:port]`
/// as a browser sends it in `Origin`, http or https, nothing after the authority. Parsed strictly,
/// because a lax reading would let through more sites than the one named: `*` and `null` (the
/// origin of local files and of every site's sandboxed frames) are refused, and so are a path, user
/// info, a query and anything a browser never puts in an `Origin`.
public struct AllowedOrigin: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// Lower case, without a trailing dot or IPv6 brackets (as `HostPolicy` compares hosts).
    public let host: String
    /// The port given, or the scheme's default.
    public let port: Int

    /// What the option takes, in words; refusals end with it.
    public static let form = "scheme://host[:port] with http or https and no path (https://kiosk.example.com, http://192.168.1.20:8000)"

    /// Parses `text`; throws the reason it is not an origin, in a sentence.
    public init(parsing text: String) throws(AllowedOriginRefusal) {
        guard let parsed = Self.parse(text) else { throw AllowedOriginRefusal(text: text, reason: Self.reason(text)) }
        self = parsed
    }

    private init(scheme: String, host: String, port: Int) {
        (self.scheme, self.host, self.port) = (scheme, host, port)
    }

    /// The origin as a browser writes it: the default port left out, an IPv6 address in brackets.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return port == Self.defaultPort(scheme) ? "\(scheme)://\(shownHost)" : "\(scheme)://\(shownHost):\(port)"
    }

    /// Whether an `Origin` header names this origin (scheme, host and port, compared as parsed).
    public func matches(_ origin: String) -> Bool {
        Self.parse(origin) == self
    }

    private static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The origin, or nil: only what a browser's `Origin` can hold for an http(s) page.
    static func parse(_ text: String) -> AllowedOrigin? {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else { return nil }
        let authority = lower.dropFirst(scheme.count + 3)
        guard !authority.isEmpty, authority.allSatisfy({ $0.isASCII && !"/?#@\\%".contains($0) && !$0.isWhitespace }) else { return nil }
        var hostText = Substring(authority)
        var port = defaultPort(scheme)
        // The port is what follows the last colon after any IPv6 brackets: digits only, 1 to 65535.
        let afterBrackets = authority.lastIndex(of: "]").map { authority.index(after: $0) } ?? authority.startIndex
        if !authority.hasPrefix("[") && authority.filter({ $0 == ":" }).count > 1 { return nil } // IPv6 needs brackets
        if let colon = authority[afterBrackets...].lastIndex(of: ":") {
            let digits = authority[authority.index(after: colon)...]
            guard (1...5).contains(digits.count), digits.allSatisfy(\.isWholeNumber), let value = Int(digits), (1...65535).contains(value)
            else { return nil }
            port = value
            hostText = authority[..<colon]
        }
        if hostText.hasPrefix("[") {
            guard hostText.hasSuffix("]") else { return nil }
            let address = String(hostText.dropFirst().dropLast())
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
            return AllowedOrigin(scheme: scheme, host: address, port: port)
        }
        // A name (an IDN in its xn-- form, as browsers send it) or an IPv4 address: labels of
        // letters, digits and hyphens, one trailing dot at most.
        let name = hostText.hasSuffix(".") ? hostText.dropLast() : hostText
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.count <= 253, labels.allSatisfy({ label in
            (1...63).contains(label.count) && label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
                && label.first != "-" && label.last != "-"
        }) else { return nil }
        return AllowedOrigin(scheme: scheme, host: String(name), port: port)
    }

    /// Why `text` is not an origin, in words.
    private static func reason(_ text: String) -> String {
        let lower = text.lowercased()
        if text == "*" {
            return "'*' would let every site's pages read the camera, with the token of whoever opens them; name each origin"
        }
        if lower == "null" {
            return "'null' is the origin of local files and of any site's sandboxed frames; serve the kiosk page over http or https and name its origin"
        }
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return "an origin begins with http:// or https://" }
        let authority = lower.drop { $0 != "/" }.dropFirst(2)
        if let slash = authority.firstIndex(where: { "/?#".contains($0) }) {
            return "an origin ends with its host and port, with no path, query or final '/' (give '\(text.prefix(text.count - authority[slash...].count))')"
        }
        if authority.contains("@") { return "an origin holds no user name or password" }
        if authority.isEmpty { return "the host is missing" }
        return "the host must be a name, an IPv4 address or an [IPv6] address, and a port 1 to 65535"
    }
}

/// Why a text is not an allowed origin: the text and the reason.
public struct AllowedOriginRefusal: Error, Sendable, CustomStringConvertible {
    public let text: String
    public let reason: String

    /// `'TEXT': REASON`, for a sentence that names what it takes first.
    public var description: String { "'\(text)': \(reason)" }
}
