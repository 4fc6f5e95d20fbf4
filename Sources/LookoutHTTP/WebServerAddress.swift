/// Where the web server listens: `--http [ADDR:]PORT` (`8080`, `0.0.0.0:8080`, `[::1]:8080`).
public struct WebServerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `[ADDR:]PORT`; nil when it is not one. Port 0 asks the system for a free port.
    public init?(parsing text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            // [IPv6]:PORT
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil } // a bare IPv6 address needs brackets
        }
        guard !host.isEmpty, !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port)
        else { return nil }
        self.host = host
        self.port = port
    }

    /// True for addresses only this machine reaches: 127.0.0.0/8, ::1 and localhost (parsed, so a
    /// name that merely starts with `127.` is not one).
    public var isLoopback: Bool { LoopbackHost.contains(host) }

    /// The exposure rule, written once for the file's check, the command line and the service:
    /// a server reachable from other machines needs a token, unless serving the camera to anyone
    /// is asked for in so many words. Why it is refused, naming the two settings as the caller
    /// spells them; nil when it may be served.
    public func exposureRefusal(hasToken: Bool, insecure: Bool, tokenSetting: String, insecureSetting: String) -> String? {
        guard !isLoopback, !hasToken, !insecure else { return nil }
        return "\(self) is reachable from other machines: give \(tokenSetting), or \(insecureSetting) to serve the camera to anyone"
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
