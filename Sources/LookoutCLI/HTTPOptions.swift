import ArgumentParser
import Lookout
import LookoutService
import LookoutHTTP

/// The web view and HTTP API (`--http`).
struct HTTPOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Serve the web view, JSON API, event stream and metrics on this port; the address is 127.0.0.1 unless given ([::1]:8080 for IPv6). With a file, serving goes on after its end until SIGINT or SIGTERM.",
        valueName: "[addr:]port"))
    var http: String?

    @Option(name: .customLong("http-token-file"), help: ArgumentHelp(
        "Require the token in this file (first line; 1 to \(TokenLimit.maximumBytes) printable ASCII characters) of every request but /healthz: as a bearer token, or as the basic-auth password in a browser. Under systemd, a credential named http-token does the same.",
        valueName: "file"))
    var tokenFile: String?

    @Flag(name: .customLong("http-insecure"), help: "Allow a non-loopback --http address without a token: anyone who reaches it sees the camera.")
    var insecure = false

    @Option(name: .customLong("http-allowed-host"), help: ArgumentHelp(
        "A host name (or address) the web view may be reached by besides localhost and 127.0.0.1 (repeatable): a loopback server without a token refuses requests naming any other Host (DNS rebinding), and pages of this name may use the API (Origin).",
        valueName: "name"))
    var allowedHosts: [String] = []

    static let previewRateRange = ValueRange.number(0.1...30)
    @Option(name: .customLong("preview-fps"), parsing: .unconditional, help: ArgumentHelp(
        "Pictures a second per viewer of the live stream, at most (\(HTTPOptions.previewRateRange.text)). (default: 5)", valueName: "fps"),
            transform: { try HTTPOptions.previewRateRange.parse($0) })
    var previewRate = 5.0

    mutating func validate() throws {
        guard let http else {
            if tokenFile != nil || insecure || !allowedHosts.isEmpty {
                throw ValidationError("--http-token-file, --http-insecure and --http-allowed-host go with --http.")
            }
            return
        }
        guard let address = WebServerAddress(parsing: http) else {
            throw ValidationError("--http takes [ADDR:]PORT with PORT 0 to 65535 (8080, 0.0.0.0:8080, [::1]:8080; 0 picks a free port), not '\(http)'.")
        }
        for host in allowedHosts where HostPolicy.split(host).map({ $0.port != nil || $0.host.isEmpty }) ?? true || host.contains("/") {
            throw ValidationError("--http-allowed-host takes a host name or address without port or scheme (lookout.local, 192.168.1.20), not '\(host)'.")
        }
        if !address.isLoopback, tokenFile == nil, systemdCredential("http-token") == nil, !insecure {
            throw ValidationError("--http \(address) is reachable from other machines: give --http-token-file FILE, or --http-insecure to serve the camera to anyone.")
        }
    }

    /// The server for the cameras, when --http is given; the token file is read here.
    func makeServer(cameras: [WebServer.Camera]) throws -> WebServer? {
        guard let http, let address = WebServerAddress(parsing: http) else { return nil }
        var configuration = WebServer.Configuration(address: address)
        configuration.previewRate = previewRate
        configuration.allowedHosts = allowedHosts
        if let tokenFile = tokenFile ?? systemdCredential("http-token") {
            configuration.token = try readToken(tokenFile)
        }
        do {
            return try WebServer(cameras: cameras, configuration: configuration)
        } catch {
            throw fail(error)
        }
    }

    /// The first line of the file, without surrounding spaces; refused when unreadable (66), or
    /// empty, longer than a request can carry or not printable ASCII (64), before the server
    /// starts.
    private func readToken(_ path: String) throws -> [UInt8] {
        let line: [UInt8]
        do throws(SecretFileError) {
            line = try firstLineOfSecretFile(path, limit: 65536)
        } catch .tooLong {
            printDiagnostic("the HTTP token in \(path) is over 64 KB long; a request carries at most \(TokenLimit.maximumBytes) bytes (1 to \(TokenLimit.maximumBytes) printable ASCII characters)")
            throw ExitCode(ExitStatus.usage)
        } catch {
            printDiagnostic("cannot read the HTTP token file \(path): \(error)")
            throw ExitCode(ExitStatus.noInput)
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let token = Array(line.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        if let problem = Self.tokenProblem(token) {
            printDiagnostic("the HTTP token in \(path) \(problem)")
            throw ExitCode(ExitStatus.usage)
        }
        return token
    }

    /// What is wrong with a token, nil when nothing: it must be 1 to `TokenLimit.maximumBytes`
    /// printable ASCII characters (spaces inside allowed), which every client sends unchanged in a
    /// header, as a bearer token and as a basic-auth password alike.
    static func tokenProblem(_ token: [UInt8]) -> String? {
        if token.isEmpty { return "is empty; put a token on the file's first line" }
        if token.count > TokenLimit.maximumBytes {
            return "is \(token.count) bytes long; a request carries at most \(TokenLimit.maximumBytes) (1 to \(TokenLimit.maximumBytes) printable ASCII characters)"
        }
        if let bad = token.first(where: { !(0x20...0x7E).contains($0) }) {
            return "holds the byte 0x\(String(bad, radix: 16, uppercase: true)); a token is 1 to \(TokenLimit.maximumBytes) printable ASCII characters"
        }
        return nil
    }
}
