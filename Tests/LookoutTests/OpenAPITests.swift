import Foundation
import Testing

/// docs/openapi.yaml against the running server, by schemathesis (PyPI; `scripts/setup debug`
/// installs it in .cache/schemathesis): generated requests, valid and invalid, to every route but
/// the two endless streams (WebServerTests reads those); no 5xx, no hang, every status, content
/// type and JSON body as declared, and the token enforced where declared.
@Suite("OpenAPI document", .serialized)
struct OpenAPITests {
    static let schemathesis = Fixtures.packageRoot + "/.cache/schemathesis/bin/schemathesis"

    @Test func theRunningServerAnswersAsTheDocumentDeclares() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.schemathesis), "run scripts/setup debug: it installs schemathesis")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token").path
        try "openapi-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        // The sample, paced, gives snapshots, a clip and a picture; after its end the web view stays up.
        let (lookout, base) = try startLookoutWithHTTP(
            ["--input", Fixtures.path("sample.mjpeg"), "--realtime", "--events", "changes", "--http-token-file", tokenFile,
             "--snapshots", folder.appendingPathComponent("snapshots").path, "--record", folder.appendingPathComponent("clips").path])
        defer {
            lookout.signal(SIGTERM)
            #expect(lookout.waitForExit(timeout: 30) == 0)
        }
        let authorized = ["-H", "Authorization: Bearer openapi-token"]
        #expect(eventually(timeout: 60) { (try? httpGet(base + "/api/latest.jpg", authorized).status) == 200 }, "a picture before the run")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        // Bounded: 25 examples an operation, a request may take 10 s, the whole run 10 minutes.
        process.arguments = ["600", Self.schemathesis, "run", Fixtures.packageRoot + "/docs/openapi.yaml", "--base-url", base,
                             "-H", "Authorization: Bearer openapi-token",
                             "--checks", "all", "--data-generation-method", "all", "--hypothesis-max-examples", "25",
                             "--hypothesis-seed", "28", "--hypothesis-deadline", "None", "--request-timeout", "10000",
                             "--exclude-path", "/api/stream.mjpeg", "--exclude-path", "/api/events", "--no-color"]
        process.environment = childEnvironment(["SCHEMATHESIS_HOOKS": "", "HOME": folder.path])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let report = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "schemathesis found faults:\n\(report.suffix(6000))")
        // Every operation ran (8 of the 10: the streams are excluded), none errored.
        #expect(report.contains("8 passed"), "\(report.suffix(3000))")
        #expect(!report.contains("errored"), "\(report.suffix(3000))")
    }
}
