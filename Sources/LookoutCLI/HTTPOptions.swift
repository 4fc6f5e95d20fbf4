import ArgumentParser
import Lookout
import LookoutHTTP

/// The web view and HTTP API (`--http`).
struct HTTPOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Serve the web view, JSON API, event stream and metrics on this port; the address is 127.0.0.1 unless given ([::1]:8080 for IPv6). With a file, serving goes on after its end until SIGINT or SIGTERM.",
        valueName: "[addr:]port"))
    var http: String?

    @Option(name: .customLong("http-token-file"), help: ArgumentHelp(
        "Require the token in this file (first line) of every request but /healthz: as a bearer token, or as the basic-auth password in a browser. Under systemd, a credential named http-token does the same.",
        valueName: "file"))
    var tokenFile: String?

    @Flag(name: .customLong("http-insecure"), help: "Allow a non-loopback --http address without a token: anyone who reaches it sees the camera.")
    var insecure = false

    @Option(name: .customLong("http-allowed-host"), help: ArgumentHelp(
        "A host name (or address) the web view may be reached by besides localhost and 127.0.0.1 (repeatable): a loopback server without a token refuses requests naming any other Host (DNS rebinding), and pages of this name may use the API (Origin).",
        valueName: "name"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("preview-fps"), help: ArgumentHelp(
        "Pictures a second per viewer of the live stream, at most (0.1-30).", valueName: "fps"))
    var previewRate = 5.0

    mutating func validate() throws {
        guard (0.1...30).contains(previewRate) else { throw ValidationError("--preview-fps must be between 0.1 and 30.") }
        guard let http else {
            if tokenFile != nil || insecure || !allowedHosts.isEmpty {
                throw ValidationError("--http-token-file, --http-insecure and --http-allowed-host go with --http.")
            }
            return
        }
        guard let address = WebServerAddress(parsing: http) else {
            throw ValidationError("--http takes [ADDR:]PORT (8080, 0.0.0.0:8080, [::1]:8080), not '\(http)'.")
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

    /// The first line of the file, without surrounding spaces; refused when empty or unreadable.
    private func readToken(_ path: String) throws -> [UInt8] {
        let line: [UInt8]
        do throws(Errno) {
            line = try firstLineOfSecretFile(path)
        } catch {
            printDiagnostic("cannot read the HTTP token file \(path): \(error)")
            throw ExitCode(ExitStatus.noInput)
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let token = Array(line.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        guard !token.isEmpty else {
            printDiagnostic("the HTTP token file \(path) is empty; put a token on its first line")
            throw ExitCode(ExitStatus.usage)
        }
        return token
    }
}
