/// How long a token can be: a request must be able to carry it in one header field, whose value
/// the web server's HTTP/1 decoder bounds (`WebServer.maximumHeaderFieldBytes`).
public enum TokenLimit {
    /// Bytes in one header field's value, as WebServer configures its decoder.
    public static var headerFieldBytes: Int { WebServer.maximumHeaderFieldBytes }

    /// The longest token a request can carry both ways the server takes it: `Authorization:
    /// Bearer TOKEN` is 7 + n bytes, basic auth's `Basic BASE64(":TOKEN")` (an empty user name)
    /// 6 + 4 × ⌈(n + 1) / 3⌉. 6137 bytes for 8 KB fields; a user name in basic auth takes its
    /// length (and the base64 third more) from the same field.
    public static var maximumBytes: Int {
        let bearer = headerFieldBytes - "Bearer ".utf8.count
        let basic = (headerFieldBytes - "Basic ".utf8.count) / 4 * 3 - ":".utf8.count
        return min(bearer, basic)
    }
}
