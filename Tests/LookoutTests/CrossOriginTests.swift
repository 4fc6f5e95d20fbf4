import Foundation
@testable import LookoutHTTP
import LookoutService
import Testing

/// A request's status and response headers (names in lower case), by curl.
func httpHeaders(_ url: String, _ options: [String] = []) throws -> (status: Int, headers: [String: String]) {
    let process = Process()
    process.environment = childEnvironment([:])
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-g", "--max-time", "10", "-D", "-", "-o", "/dev/null"] + options + [url]
    let out = Pipe()
    process.standardOutput = out
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let lines = text.split(separator: "\r\n")
    let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (status, headers)
}

/// `--http-allowed-origin`: pages of the origins named read the API and `/api/events` with CORS
/// (preflight included); every other origin is refused as before; the token is still required.
@Suite("Cross-origin kiosk pages", .serialized)
struct CrossOriginTests {
    static let kiosk = "http://kiosk.test:8000"
    static let preflight = ["-X", "OPTIONS", "-H", "Origin: \(kiosk)", "-H", "Access-Control-Request-Method: GET",
                            "-H", "Access-Control-Request-Headers: authorization"]

    @Test func originsAreReadStrictlyAndComparedAsBrowsersWriteThem() throws {
        for (text, shown) in [("https://Kiosk.Example.COM", "https://kiosk.example.com"), ("http://kiosk.lan:80", "http://kiosk.lan"),
                              ("http://192.168.1.20:8000", "http://192.168.1.20:8000"), ("https://[FD00::2]:8443", "https://[fd00::2]:8443"),
                              ("http://localhost:3000", "http://localhost:3000"), ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example")] {
            #expect(try AllowedOrigin(parsing: text).description == shown, "\(text)")
        }
        let refused: [(String, String)] = [
            ("*", "every site's pages"), ("null", "local files"), ("https://kiosk.lan/", "no path, query or final '/' (give 'https://kiosk.lan')"),
            ("https://kiosk.lan/page.html", "no path"), ("https://kiosk.lan?x", "no path"), ("kiosk.lan", "begins with http:// or https://"),
            ("file:///kiosk.html", "begins with http"), ("ws://kiosk.lan", "begins with http"), ("http://user:pw@kiosk.lan", "no user name"),
            ("http://", "the host is missing"), ("http://kiosk.lan:0", "port 1 to 65535"), ("http://kiosk.lan:65536", "port 1 to 65535"),
            ("http://kiosk.lan:+80", "port"), ("http://::1", "[IPv6]"), ("http://[::1", "[IPv6]"), ("http://ki osk.lan", "a name"),
            ("http://kiosk..lan", "a name"), ("http://-kiosk.lan", "a name"), ("http://bücher.example", "a name"),
        ]
        for (text, words) in refused {
            #expect(throws: AllowedOriginRefusal.self, "\(text)") { try AllowedOrigin(parsing: text) }
            do { _ = try AllowedOrigin(parsing: text) } catch {
                #expect(error.description.hasPrefix("'\(text)': ") && error.description.contains(words), "\(error.description)")
            }
        }
        let origin = try AllowedOrigin(parsing: "http://kiosk.lan")
        for header in ["http://kiosk.lan", "HTTP://KIOSK.LAN", "http://kiosk.lan:80", "http://kiosk.lan."] { #expect(origin.matches(header), "\(header)") }
        for header in ["https://kiosk.lan", "http://kiosk.lan:8080", "http://kiosk.lan.evil.example", "http://evil.kiosk.lan", "null", ""] {
            #expect(!origin.matches(header), "\(header)")
        }
    }

    @Test func theHostPolicyLetsInTheAllowedOriginsOnly() throws {
        let policy = HostPolicy(restrictsHost: true, allowedOrigins: [try AllowedOrigin(parsing: Self.kiosk)])
        #expect(policy.check(host: "127.0.0.1:8080", origin: Self.kiosk) == .allowed)
        #expect(policy.check(host: "127.0.0.1:8080", origin: "http://kiosk.test:8001") == .crossOrigin("http://kiosk.test:8001"))
        #expect(policy.check(host: "127.0.0.1:8080", origin: "https://kiosk.test:8000") == .crossOrigin("https://kiosk.test:8000"))
        // The page's origin lets it in; the Host it names is checked as before (DNS rebinding).
        #expect(policy.check(host: "kiosk.test:8080", origin: Self.kiosk) == .wrongHost("kiosk.test"))
    }

    @Test func theOptionAndTheKeyRefuseABadOriginInASentence() throws {
        let star = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "0", "--http-allowed-origin", "*"])
        #expect(star.status == 64)
        #expect(star.stderr.hasPrefix("lookout: --http-allowed-origin takes scheme://host[:port] with http or https and no path (https://kiosk.example.com, http://192.168.1.20:8000), not '*': '*' would let every site's pages read the camera"), "\(star.stderr)")
        let path = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "0", "--http-allowed-origin", "https://kiosk.lan/"])
        #expect(path.status == 64)
        #expect(path.stderr.contains("(give 'https://kiosk.lan')"), "\(path.stderr)")
        let alone = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http-allowed-origin", Self.kiosk])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--http-allowed-origin go with --http"), "\(alone.stderr)")
        let file = "http:\n  http: 8080\n  http-allowed-origin: [\"https://kiosk.lan\", \"*\"]\n"
        #expect(throws: ConfigurationProblems.self) { try ConfigurationFile.parse(file, file: "lookout.yml", environment: [:]) }
        do { _ = try ConfigurationFile.parse(file, file: "lookout.yml", environment: [:]) } catch {
            #expect(error.description.contains("http.http-allowed-origin: '*' in the list is not allowed (allowed: a list of origins, scheme://host[:port]"),
                    "\(error.description)")
        }
        let good = try ConfigurationFile.parse("http:\n  http: 8080\n  http-allowed-origin: [\"https://kiosk.lan\", \"http://10.0.0.5:8000\"]\n",
                                               file: "lookout.yml", environment: [:])
        #expect(good.settings.httpAllowedOrigins == ["https://kiosk.lan", "http://10.0.0.5:8000"])
    }

    @Test func anAllowedOriginGetsThePreflightAndItsHeadersAndOthersAreRefused() throws {
        let (lookout, base) = try startLookoutWithHTTP(["--input", Fixtures.path("sample.mjpeg"), "--http-allowed-origin", Self.kiosk])
        defer {
            lookout.signal(SIGTERM)
            #expect(lookout.waitForExit(timeout: 30) == 0)
        }
        for path in ["/api/status", "/api/events", "/api/latest.jpg"] {
            let answer = try httpHeaders(base + path, Self.preflight)
            #expect(answer.status == 204, "OPTIONS \(path): \(answer)")
            #expect(answer.headers["access-control-allow-origin"] == Self.kiosk, "\(answer.headers)")
            #expect(answer.headers["access-control-allow-methods"] == "GET, HEAD", "\(answer.headers)")
            #expect(answer.headers["access-control-allow-headers"] == "Authorization", "\(answer.headers)")
            #expect(answer.headers["access-control-max-age"] == "600", "\(answer.headers)")
            #expect(answer.headers["vary"] == "Origin", "\(answer.headers)")
        }
        let status = try httpHeaders(base + "/api/status", ["-H", "Origin: \(Self.kiosk)"])
        #expect(status.status == 200 && status.headers["access-control-allow-origin"] == Self.kiosk && status.headers["vary"] == "Origin",
                "\(status)")
        // The stream's head: the page's EventSource may read it.
        let events = try httpHeaders(base + "/api/events", ["-I", "-H", "Origin: \(Self.kiosk)"])
        #expect(events.status == 200 && events.headers["content-type"] == "text/event-stream", "\(events)")
        #expect(events.headers["access-control-allow-origin"] == Self.kiosk, "\(events)")
        // Chromium's Private Network Access question is answered for the allowed origin.
        let privateNetwork = try httpHeaders(base + "/api/events", Self.preflight + ["-H", "Access-Control-Request-Private-Network: true"])
        #expect(privateNetwork.headers["access-control-allow-private-network"] == "true", "\(privateNetwork)")
        // Pages from anywhere else, preflight or not, are refused as before, and told nothing.
        let (host, port) = (base.dropFirst(7).split(separator: ":")[0], base.split(separator: ":").last ?? "")
        for origin in ["http://evil.example", "http://kiosk.test:8001", "https://kiosk.test:8000", "http://kiosk.test", "null"] {
            for request in [["-H", "Origin: \(origin)"], ["-X", "OPTIONS", "-H", "Origin: \(origin)", "-H", "Access-Control-Request-Method: GET"]] {
                let answer = try httpHeaders(base + "/api/status", request)
                #expect(answer.status == 403, "\(origin) \(request): \(answer)")
                #expect(answer.headers["access-control-allow-origin"] == nil, "\(origin): \(answer.headers)")
            }
        }
        #expect(try httpGet(base + "/api/status", ["-H", "Origin: http://evil.example"]).text.contains("--http-allowed-origin"))
        // The server's own pages need no CORS: no header is added for them.
        let own = try httpHeaders(base + "/api/status", ["-H", "Origin: http://\(host):\(port)"])
        #expect(own.status == 200 && own.headers["access-control-allow-origin"] == nil, "\(own)")
        #expect(!(try httpHeaders(base + "/api/status").headers.values.contains("*")))
    }

    @Test func theTokenIsStillRequiredAndEventSourceGivesItInTheQuery() throws {
        let folder = try ScratchFolder()
        defer { withExtendedLifetime(folder) {} } // removed when the test ends, not after its last use
        let tokenFile = folder.path + "/token"
        // A space and a plus: a page's URLSearchParams writes them as + and %2B.
        try "kiosk token+1\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)

        // Off loopback without a token, an allowed origin changes nothing: refused at start.
        let open = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "0.0.0.0:0", "--http-allowed-origin", Self.kiosk])
        #expect(open.status == 64)
        #expect(open.stderr.contains("reachable from other machines"), "\(open.stderr)")

        // Off loopback with a token (asked on the loopback address: the token is needed from anywhere).
        let process = try BackgroundProcess(lookoutBinary, ["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "0.0.0.0:0",
                                                            "--http-token-file", tokenFile, "--http-allowed-origin", Self.kiosk])
        defer {
            process.signal(SIGTERM)
            #expect(process.waitForExit(timeout: 30) == 0)
        }
        var port: Substring?
        _ = process.errors.wait(timeout: 30) { lines in
            port = lines.lazy.compactMap { $0.firstMatch(of: /web view at http:\/\/0\.0\.0\.0:([0-9]+)\//)?.output.1 }.first
            return port != nil
        }
        let base = "http://127.0.0.1:\(try #require(port, "\(process.errors.lines)"))"
        let origin = ["-H", "Origin: \(Self.kiosk)"]
        // The preflight carries no credentials (browsers never send them): it is answered, and grants nothing.
        #expect(try httpHeaders(base + "/api/status", Self.preflight).status == 204)
        let refused = try httpHeaders(base + "/api/status", origin)
        #expect(refused.status == 401, "\(refused)")
        #expect(refused.headers["access-control-allow-origin"] == Self.kiosk, "the page can tell a refused token: \(refused)")
        #expect(try httpHeaders(base + "/api/status", origin + ["-H", "Authorization: Bearer kiosk token+1"]).status == 200)
        // EventSource sends no header: /api/events takes the token as ?access_token=, form-encoded.
        for query in ["access_token=kiosk+token%2B1", "access_token=kiosk%20token%2B1"] {
            let stream = try httpHeaders(base + "/api/events?" + query, ["-I"] + origin)
            #expect(stream.status == 200 && stream.headers["content-type"] == "text/event-stream", "\(query): \(stream)")
        }
        #expect(try httpHeaders(base + "/api/events?access_token=kiosk+token+1", ["-I"] + origin).status == 401, "a plus is not a space")
        #expect(try httpHeaders(base + "/api/events?access_token=wrong", ["-I"] + origin).status == 401)
        #expect(try httpHeaders(base + "/api/events", ["-I"] + origin).status == 401)
        // Only the event stream takes it: elsewhere the header is the way.
        #expect(try httpHeaders(base + "/api/status?access_token=kiosk+token%2B1", origin).status == 401)
        // A foreign origin is refused before its token is looked at.
        #expect(try httpHeaders(base + "/api/status", ["-H", "Origin: http://evil.example", "-H", "Authorization: Bearer kiosk token+1"]).status == 403)
    }
}
