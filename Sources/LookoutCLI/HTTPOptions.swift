import ArgumentParser
import Lookout
import LookoutService
import LookoutHTTP

/// The web view and HTTP API (`--http`).
struct HTTPOptions: ParsableArguments {
    @Option(name: .long, help: .key("http"))
    var http: String?

    @Option(name: .customLong("http-token-file"), help: .key("http-token-file"))
    var tokenFile: String?

    @Flag(name: .customLong("http-insecure"), help: .key("http-insecure"))
    var insecure = false

    @Option(name: .customLong("http-allowed-host"), help: .key("http-allowed-host", repeatable: true))
    var allowedHosts: [String] = []

    @Option(name: .customLong("http-allowed-origin"), help: .key("http-allowed-origin", repeatable: true))
    var allowedOrigins: [String] = []

    static let previewRateRange = ConfigurationKey.argumentRange("preview-fps", Double.self)
    @Option(name: .customLong("preview-fps"), parsing: .unconditional, help: .key("preview-fps"),
            transform: { try HTTPOptions.previewRateRange.parse($0) })
    var previewRate: Double?

    mutating func validate() throws {
        if let http, WebServerAddress(parsing: http) == nil {
            throw ValidationError("--http takes [ADDR:]PORT with PORT 0 to 65535 (8080, 0.0.0.0:8080, [::1]:8080; 0 picks a free port), not '\(http)'.")
        }
        for host in allowedHosts where HostPolicy.split(host).map({ $0.port != nil || $0.host.isEmpty }) ?? true || host.contains("/") {
            throw ValidationError("--http-allowed-host takes a host name or address without port or scheme (lookout.local, 192.168.1.20), not '\(host)'.")
        }
        for origin in allowedOrigins {
            do throws(AllowedOriginRefusal) { _ = try AllowedOrigin(parsing: origin) } catch {
                throw ValidationError("--http-allowed-origin takes \(AllowedOrigin.form), not \(error).")
            }
        }
    }

    /// Without a configuration file: the options that go with --http need it, and a server
    /// reachable from other machines needs a token.
    func checkStandingAlone() throws {
        guard let http, let address = WebServerAddress(parsing: http) else {
            if tokenFile != nil || insecure || !allowedHosts.isEmpty || !allowedOrigins.isEmpty {
                throw ValidationError("--http-token-file, --http-insecure, --http-allowed-host and --http-allowed-origin go with --http.")
            }
            return
        }
        if let refusal = address.exposureRefusal(hasToken: tokenFile != nil || systemdCredential("http-token") != nil, insecure: insecure,
                                                 tokenSetting: "--http-token-file FILE", insecureSetting: "--http-insecure") {
            throw ValidationError("--http " + refusal + ".")
        }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.http = http
        settings.httpTokenFile = tokenFile
        if insecure { settings.httpInsecure = true }
        if !allowedHosts.isEmpty { settings.httpAllowedHosts = allowedHosts }
        if !allowedOrigins.isEmpty { settings.httpAllowedOrigins = allowedOrigins }
        settings.previewFPS = previewRate
        return settings
    }
}
