import Hummingbird

/// Refuses, with 400 naming the parameter, a query parameter its route does not take: a typo
/// (`?camra=hall`) would otherwise be answered silently for the first camera.
struct QueryCheck<Context: RequestContext>: RouterMiddleware {
    /// The parameters each route takes (docs/openapi.yaml declares the same).
    static func parameters(of path: String) -> Set<String> {
        switch path {
        case "/healthz", "/metrics": return []
        // The token, for a page's EventSource (TokenAuthentication); ignored without one.
        case "/api/events": return ["access_token"]
        case "/api/latest.jpg": return ["camera", "boxes", "h"]
        case "/api/stream.mjpeg": return ["camera", "boxes"]
        default: return ["camera"]
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let taken = Self.parameters(of: request.uri.path)
        for (name, _) in request.uri.queryParameters where !taken.contains(String(name)) {
            let known = taken.isEmpty ? "it takes none" : "it takes " + taken.sorted().joined(separator: ", ")
            return .plainText(.badRequest, "unknown query parameter '\(name)' for \(request.uri.path): \(known)")
        }
        return try await next(request, context)
    }
}
