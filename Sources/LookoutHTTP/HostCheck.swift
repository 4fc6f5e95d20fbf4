import Hummingbird

/// Refuses, with 403 and the reason, requests `HostPolicy` does not allow. `/healthz` is checked
/// for its `Host` only: a health checker sends no `Origin`, and the answer reveals nothing.
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    let policy: HostPolicy
    /// The settings named in a refusal (`WebServer.Configuration.allowedHostsSetting`).
    let hostsSetting: String
    let originsSetting: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.uri.path == "/healthz" ? nil : request.headers[.origin]
        switch policy.check(host: request.head.authority, origin: origin) {
        case .allowed:
            return try await next(request, context)
        case .wrongHost(let host):
            return .plainText(.forbidden, "this server answers to loopback names only, not '\(host)'; name it in \(hostsSetting) to allow it")
        case .crossOrigin(let origin):
            return .plainText(.forbidden, "requests from another site (Origin: \(origin)) are refused; \(originsSetting) lets a site's pages in")
        }
    }
}
