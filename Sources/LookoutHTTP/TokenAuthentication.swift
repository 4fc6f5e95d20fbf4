import Foundation
import Hummingbird

/// Lets a request through when it carries the token: as `Authorization: Bearer <token>`, or as
/// the password of HTTP basic authentication (any user name), so that a browser can log in; on
/// `/api/events` also as `?access_token=` (RFC 6750's name), because a page's `EventSource` cannot
/// send a header. Otherwise 401, with a basic-auth challenge. `/healthz` stays open for health checkers.
struct TokenAuthentication<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" || isAuthorized(request) {
            return try await next(request, context)
        }
        var refusal = Response.plainText(.unauthorized, "a token is needed (Authorization: Bearer, or the basic-auth password; on /api/events also ?access_token=)")
        refusal.headers[.wwwAuthenticate] = "Basic realm=\"Lookout\", charset=\"UTF-8\""
        return refusal
    }

    private func isAuthorized(_ request: Request) -> Bool {
        if request.uri.path == "/api/events", let given = Self.queryToken(request.uri.query), Self.equal(Array(given.utf8), token) {
            return true
        }
        guard let value = request.headers[.authorization] else { return false }
        if value.lowercased().hasPrefix("bearer ") {
            return Self.equal(Array(value.utf8.dropFirst(7)), token)
        }
        if value.lowercased().hasPrefix("basic "), let decoded = Data(base64Encoded: String(value.dropFirst(6))) {
            let bytes = Array(decoded)
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
            return Self.equal(Array(bytes[(colon + 1)...]), token)
        }
        return false
    }

    /// `access_token` from a query, form-encoded as RFC 6750 has it and as a page's URLSearchParams
    /// writes it: `+` is a space (a token may hold spaces), `%2B` a plus.
    static func queryToken(_ query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("access_token=") {
            return String(pair.dropFirst(13)).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    /// Compares in time that does not depend on where the first difference is.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
