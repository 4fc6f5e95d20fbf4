import Foundation
import Lookout
import Testing

/// docs/kiosk-page.html in headless Chromium, served by a second web server on another origin:
/// it reads Lookout's event stream (CORS, the token in the query) and shows the code read, while
/// the same page from an origin Lookout was not told about is refused (Tests/Browser/check-kiosk-page.py).
@Suite("Kiosk page in a browser", .serialized)
struct KioskPageTests {
    @Test func aPageFromAnotherOriginShowsTheCodeReadFromTheStream() throws {
        let folder = try ScratchFolder()
        defer { withExtendedLifetime(folder) {} } // removed when the test ends, not after its last use
        let tokenFile = folder.path + "/token"
        try "kiosk token+1\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let pagePort = try TestPort.lease()
        // Blank frames first (the server starts once standard input gives a frame); the sample's
        // QR code follows once the page is connected, so its one code event goes to the page.
        let blank = try PictureRenderer().jpeg(of: FramePicture(copying: [UInt8](repeating: 200, count: 1280 * 720),
                                                                width: 1280, height: 720, pixelFormat: .gray))
        let (lookout, base) = try startLookoutWithHTTP(
            ["--input", "kiosk=-", "--types", "qr", "--events", "changes", "--http-token-file", tokenFile,
             "--http-allowed-origin", "http://localhost:\(pagePort)"],
            withInput: true, input: Data(Array([[UInt8]](repeating: blank, count: 30).joined())))
        defer {
            lookout.signal(SIGTERM)
            _ = lookout.waitForExit(timeout: 30)
        }
        let expected = try Fixtures.sampleExpectation().qr
        let check = try BackgroundProcess(Fixtures.packageRoot + "/Tests/Browser/check-kiosk-page.py",
                                          [Fixtures.packageRoot + "/docs", String(pagePort), base, expected,
                                           "--token", "kiosk token+1", "--timeout", "120"])
        #expect(check.output.wait(timeout: 150) { $0.contains("connected") }, "the page never connected: \(check.output.lines)")
        try lookout.write(Data(try Fixtures.bytes("sample.mjpeg")))
        #expect(check.waitForExit(timeout: 300) == 0, "\(check.output.lines.joined(separator: "\n"))")
        let report = try #require(check.output.lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                                  "\(check.output.lines)")
        let allowed = try #require((report["allowed"] as? [String: Any])?["page"] as? [String: Any], "\(report)")
        #expect(allowed["code"] as? String == expected && allowed["shown"] as? String == expected, "\(allowed)")
        #expect((allowed["time"] as? String)?.hasPrefix("20") == true, "the code's time: \(allowed)")
        #expect((report["foreign"] as? [String: Any])?["refused"] as? Bool == true, "\(report)")
        // The code the page showed is the one standard output wrote.
        #expect(lookout.output.lines.contains { $0.contains(#""kind":"code""#) && $0.contains(#""value":"Lookout sample QR"#) })
    }
}
