import HTTPTypes
import Hummingbird

/// Cross-origin resource sharing for the origins `--http-allowed-origin` names: a kiosk page served
/// by another web server reads the API and `/api/events`. It runs after `HostCheck` (so any other
/// origin is refused before this) and before `TokenAuthentication`, because a browser sends a
/// preflight without credentials: the preflight says what may be asked and grants nothing, and
/// the request that follows still needs the token wherever one is required.
///
/// Headers name the one origin that asked, never `*`: with a token, `*` would hand the answers to
/// any page its holder opens. Every answer says `Vary: Origin`, as it differs by origin.
struct CrossOriginSharing<Context: RequestContext>: RouterMiddleware {
    let origins: [AllowedOrigin]

    /// What the API takes: GET and HEAD, with the token in `Authorization`.
    static var allowedMethods: String { "GET, HEAD" }
    static var allowedHeaders: String { "Authorization" }
    /// How long a browser may keep a preflight's answer: ten minutes, so that an origin removed by
    /// a reload stops being let in soon after (Chromium keeps one two hours at most in any case).
    static var maximumAge: Int { 600 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(where: { $0.matches(origin) }) else {
            var response = try await next(request, context)
            Self.addVary(to: &response.headers)
            return response
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = Self.allowedMethods
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = String(Self.maximumAge)
            // Chromium asks before a public page reaches a private address (Private Network
            // Access); the operator allowed this origin, so the answer is yes.
            if request.headers[.accessControlRequestPrivateNetwork]?.lowercased() == "true" {
                headers[.accessControlAllowPrivateNetwork] = "true"
            }
            headers[.cacheControl] = "no-store"
            Self.addVary(to: &headers)
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        Self.addVary(to: &response.headers)
        return response
    }

    private static func addVary(to headers: inout HTTPFields) {
        if let vary = headers[.vary] {
            if !vary.lowercased().contains("origin") { headers[.vary] = vary + ", Origin" }
        } else {
            headers[.vary] = "Origin"
        }
    }
}

extension HTTPField.Name {
    /// Private Network Access's pair (not among swift-http-types' names).
    static let accessControlRequestPrivateNetwork = HTTPField.Name("Access-Control-Request-Private-Network")!
    static let accessControlAllowPrivateNetwork = HTTPField.Name("Access-Control-Allow-Private-Network")!
}
