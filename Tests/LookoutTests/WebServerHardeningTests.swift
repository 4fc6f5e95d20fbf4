import Foundation
@testable import Lookout
import Testing

/// Runs a Python script of Tests/Support with `input` on its standard input; its one JSON line.
func supportScript(_ name: String, _ arguments: [String], input: Data = Data()) throws -> [String: Any] {
    let process = Process()
    process.environment = childEnvironment([:])
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [Fixtures.packageRoot + "/Tests/Support/" + name] + arguments
    let stdin = Pipe(), out = Pipe()
    process.standardInput = stdin
    process.standardOutput = out
    _ = brokenPipesIgnored
    try process.run()
    try stdin.fileHandleForWriting.write(contentsOf: input)
    try stdin.fileHandleForWriting.close()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(name) failed: \(String(decoding: data, as: UTF8.self))")
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name) wrote \(String(decoding: data, as: UTF8.self))")
}

/// The web server under attack: idle and slow clients, rebound host names, other sites' pages,
/// methods and bodies no route takes. Each test runs the built binary on the sample clip (the web
/// view stays up after the clip's end) and talks to it over real sockets.
@Suite("Web server hardening", .serialized)
struct WebServerHardeningTests {
    /// The server's host and port from its base URL (`http://127.0.0.1:PORT`).
    private func hostAndPort(_ base: String) throws -> (String, String) {
        let authority = try #require(base.split(separator: "/").last)
        let parts = authority.split(separator: ":")
        try #require(parts.count == 2, "\(base)")
        return (String(parts[0]), String(parts[1]))
    }

    private func startServer(_ extra: [String] = []) throws -> (BackgroundProcess, String, String, String) {
        let (lookout, base) = try startLookoutWithHTTP(["--input", Fixtures.path("sample.mjpeg")] + extra)
        let (host, port) = try hostAndPort(base)
        return (lookout, base, host, port)
    }

    private func stop(_ lookout: BackgroundProcess) {
        lookout.signal(SIGTERM)
        #expect(lookout.waitForExit(timeout: 30) == 0)
    }

    @Test func sixtyFourIdleConnectionsDoNotKeepOthersOut() throws {
        let (lookout, _, host, port) = try startServer()
        defer { stop(lookout) }
        let result = try supportScript("http-hold.py", [host, port, "idle", "64", "6"])
        #expect(result["held"] as? Int == 64, "the attack held the limit: \(result)")
        #expect(result["probes_ok"] as? Int == 6, "/healthz and / answered every new client: \(result)")
        #expect(result["probes_failed"] as? Int == 0, "\(result)")
    }

    @Test func clientsTricklingTheirHeadsAreClosedAndOthersAnswered() throws {
        let (lookout, _, host, port) = try startServer()
        defer { stop(lookout) }
        // Forty clients a byte a second: a head would take 100 s; the server closes them first.
        let result = try supportScript("http-hold.py", [host, port, "trickle", "40", "8"])
        #expect(result["probes_ok"] as? Int == 8, "\(result)")
        #expect(result["probes_failed"] as? Int == 0, "\(result)")
        #expect(result["trickles_completed"] as? Int == 0, "no trickled head was waited for to its end: \(result)")
        let closed = try #require(result["trickles_closed_by_server"] as? Int)
        #expect(closed >= 40, "every trickling client was closed by the server at least once: \(result)")
    }

    @Test func aRebindingHostIsRefusedOnALoopbackServerWithoutToken() throws {
        let (lookout, base, _, port) = try startServer(["--http-allowed-host", "lookout.lan"])
        defer { stop(lookout) }
        for host in ["evil.example", "127.0.0.1.evil.example", "127.evil.example:\(port)", "localhost.evil.example"] {
            for path in ["/api/status", "/", "/api/latest.jpg", "/healthz", "/metrics"] {
                let answer = try httpGet(base + path, ["-H", "Host: \(host)"])
                #expect(answer.status == 403, "Host \(host) \(path): \(answer.status)")
                // The refusal names the setting as the operator gave it: here, an option.
                #expect(answer.text.contains("name it in --http-allowed-host"), "\(answer.text)")
            }
        }
        for host in ["localhost:\(port)", "127.0.0.1:\(port)", "127.5.6.7:\(port)", "[::1]:\(port)", "LOCALHOST.", "lookout.lan:\(port)"] {
            let answer = try httpGet(base + "/api/status", ["-H", "Host: \(host)"])
            #expect(answer.status == 200, "Host \(host): \(answer.status)")
        }
    }

    @Test func otherSitesPagesCannotUseTheAPI() throws {
        let (lookout, base, _, port) = try startServer(["--http-allowed-host", "dashboard.lan"])
        defer { stop(lookout) }
        for origin in ["http://evil.example", "null", "http://localhost:1", "https://127.0.0.1:\(port)", "file://"] {
            let answer = try httpGet(base + "/api/status", ["-H", "Origin: \(origin)"])
            #expect(answer.status == 403, "Origin \(origin): \(answer.status)")
            #expect(answer.text.contains("another site") && answer.text.contains("; --http-allowed-origin lets"), "\(answer.text)")
        }
        for origin in ["http://127.0.0.1:\(port)", "http://dashboard.lan"] {
            let answer = try httpGet(base + "/api/status", ["-H", "Origin: \(origin)"])
            #expect(answer.status == 200, "Origin \(origin): \(answer.status)")
        }
        // The health check answers whatever page asks.
        #expect(try httpGet(base + "/healthz", ["-H", "Origin: http://evil.example"]).status == 200)
    }

    @Test func withATokenAnyHostIsServedButNotOtherOrigins() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token").path
        try "s3cret-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let (lookout, base, _, _) = try startServer(["--http-token-file", tokenFile])
        defer { stop(lookout) }
        let authorized = ["-H", "Authorization: Bearer s3cret-token"]
        #expect(try httpGet(base + "/api/status", authorized + ["-H", "Host: camera.example"]).status == 200)
        #expect(try httpGet(base + "/api/status", authorized + ["-H", "Origin: http://evil.example"]).status == 403)
        #expect(try httpGet(base + "/api/status", ["-H", "Host: camera.example"]).status == 401)
    }

    @Test func headAnswersEveryRouteWithoutABody() throws {
        let (lookout, base, _, _) = try startServer()
        defer { stop(lookout) }
        #expect(eventually(timeout: 60) { (try? httpGet(base + "/api/latest.jpg").status) == 200 }, "a picture")
        let routes: [(String, String)] = [("/", "text/html"), ("/api/status", "application/json"), ("/healthz", "application/json"),
                                          ("/metrics", "text/plain"), ("/api/latest.jpg", "image/jpeg"),
                                          ("/api/stream.mjpeg", "multipart/x-mixed-replace"), ("/api/events", "text/event-stream"),
                                          ("/api/recordings", "application/json")]
        for (path, type) in routes {
            let answer = try httpGet(base + path, ["-I"])
            #expect(answer.status == 200, "HEAD \(path): \(answer.status)")
            #expect(answer.contentType.hasPrefix(type), "HEAD \(path): \(answer.contentType)")
            #expect(answer.body.count < 1024 && answer.text.hasPrefix("HTTP/1.1 200"), "HEAD \(path) sent headers only: \(answer.text.prefix(200))")
        }
        // The streams answered HEAD without taking a viewer's or client's place.
        let status = try #require(try httpGet(base + "/api/status").json)
        let http = try #require(status["http"] as? [String: Any], "\(status)")
        #expect(http["event_clients"] as? Int == 0, "\(http)")
        #expect(http["stream_clients"] as? Int == 0, "\(http)")
    }

    @Test func connectIsRefusedAndClosed() throws {
        let (lookout, _, host, port) = try startServer()
        defer { stop(lookout) }
        let result = try supportScript("http-raw.py", [host, port],
                                       input: Data("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8))
        #expect(result["status"] as? String == "HTTP/1.1 405 Method Not Allowed", "\(result)")
        #expect(result["closed"] as? Bool == true, "\(result)")
    }

    @Test func http10WithoutKeepAliveIsClosedAfterItsAnswer() throws {
        let (lookout, _, host, port) = try startServer()
        defer { stop(lookout) }
        // Waiting far past the keep-alive timeout would also close it: 8 s tells the two apart.
        let result = try supportScript("http-raw.py", [host, port, "8"], input: Data("GET /healthz HTTP/1.0\r\n\r\n".utf8))
        #expect(result["status"] as? String == "HTTP/1.1 200 OK", "\(result)")
        #expect(result["closed"] as? Bool == true, "\(result)")
        let close = try supportScript("http-raw.py", [host, port, "8"],
                                      input: Data("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8))
        #expect(close["closed"] as? Bool == true, "\(close)")
    }

    @Test func aBodyOverTheBoundIsRefusedBeforeItIsRead() throws {
        let (lookout, _, host, port) = try startServer()
        defer { stop(lookout) }
        // The head announces 50 MB and none is sent: the answer cannot have waited for it.
        let result = try supportScript("http-raw.py", [host, port],
                                       input: Data("GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50000000\r\n\r\n".utf8))
        #expect(result["status"] as? String == "HTTP/1.1 413 Payload Too Large", "\(result)")
        #expect(result["closed"] as? Bool == true, "\(result)")
        var chunked = Data("GET /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<8 { chunked += Data("400\r\n".utf8) + Data(repeating: 0x61, count: 1024) + Data("\r\n".utf8) }
        let chunkedResult = try supportScript("http-raw.py", [host, port], input: chunked)
        #expect(chunkedResult["closed"] as? Bool == true, "a chunked body past 4 KB closes the connection: \(chunkedResult)")
    }

    @Test func aFileReadFasterThanTheFirstPhotoStillLeavesItsLastPicture() throws {
        // Three frames, unpaced, end at once: the web view's first request for a photo is made
        // before the session runs, and must be served by its first frame (the next request comes
        // a second later, after the end).
        let frame = try PictureRenderer().jpeg(of: FramePicture(copying: [UInt8](repeating: 90, count: 320 * 240),
                                                                width: 320, height: 240, pixelFormat: .gray))
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-short-\(UUID().uuidString).mjpeg")
        try Data(frame + frame + frame).write(to: clip)
        defer { try? FileManager.default.removeItem(at: clip) }
        let (lookout, base) = try startLookoutWithHTTP(["--input", clip.path])
        defer { stop(lookout) }
        #expect(lookout.errors.wait(timeout: 60) { $0.contains { $0.contains("input ended") } }, "\(lookout.errors.lines)")
        let picture = try httpGet(base + "/api/latest.jpg")
        #expect(picture.status == 200, "\(picture.status) \(picture.text.prefix(100))")
        #expect(picture.contentType == "image/jpeg")
    }

    @Test func aHostNameThatStartsWith127IsNotLoopback() throws {
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--http", "127.0.0.1.nip.io:0"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("reachable from other machines"), "\(result.stderr)")
    }
}
