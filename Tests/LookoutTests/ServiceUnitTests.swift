import Foundation
import Testing
@testable import Lookout

/// The systemd unit (scripts/lookout@.service), scripts/install, and credentials as systemd
/// hands them over. systemd itself does not run here: the unit is checked by systemd-analyze.
@Suite("Running as a service", .serialized)
struct ServiceUnitTests {
    static let unitPath = Fixtures.packageRoot + "/scripts/lookout@.service"

    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func theUnitPassesSystemdAnalyzeVerifyWithoutAWord() throws {
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        for required in ["Restart=on-failure", "RestartPreventExitStatus=64", "DynamicUser=yes", "SupplementaryGroups=video",
                         "DeviceAllow=char-video4linux rw", "ProtectSystem=strict", "StateDirectory=lookout/%i",
                         "LoadCredential=mqtt-password:", "LoadCredential=http-token:", "EnvironmentFile=-/etc/lookout/%i.env",
                         "ExecStartPre=/usr/local/bin/lookout config check /etc/lookout/%i.yml",
                         "ExecStart=/usr/local/bin/lookout run --config /etc/lookout/%i.yml", "ExecReload=/bin/kill -HUP $MAINPID"] {
            #expect(text.contains(required), "the unit lacks \(required)")
        }
        // The instance runs the binary just built (verify checks that the program exists).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = folder.appendingPathComponent("lookout@hall.service")
        try text.replacingOccurrences(of: "/usr/local/bin/lookout", with: lookoutBinary).write(to: unit, atomically: true, encoding: .utf8)
        let verify = try Self.run("/usr/bin/systemd-analyze", ["verify", unit.path])
        #expect(verify.status == 0 && verify.output.isEmpty, "systemd-analyze verify: \(verify.output)")
        // A mistake is caught: the check is not blind.
        try (text + "\nRestart=sometimes\n").replacingOccurrences(of: "/usr/local/bin/lookout", with: lookoutBinary)
            .write(to: unit, atomically: true, encoding: .utf8)
        #expect(try !Self.run("/usr/bin/systemd-analyze", ["verify", unit.path]).output.isEmpty)
    }

    @Test func installStagesTheBinaryModelsUnitAndAnInstance() throws {
        let stage = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-stage-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let install = try Self.run(Fixtures.packageRoot + "/scripts/install", ["--instance", "hall", "--input", Fixtures.path("sample.mjpeg"), "--stats"],
                                   environment: ["DESTDIR": stage, "LOOKOUT_BINARY": lookoutBinary])
        #expect(install.status == 0, "\(install.output)")
        let env = try String(contentsOfFile: stage + "/etc/lookout/hall.env", encoding: .utf8)
        #expect(env.contains("LOOKOUT_ARGS=--stats\n"))
        // The example configuration is commented, names the camera given, and passes the check.
        let config = stage + "/etc/lookout/hall.yml"
        let example = try String(contentsOfFile: config, encoding: .utf8)
        #expect(example.contains("    input: \(Fixtures.path("sample.mjpeg"))"))
        #expect(example.contains("# lookout@hall:"))
        let check = try lookout(["config", "check", config])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.lines == ["\(config): ok, 1 camera: camera"])
        let token = try FileManager.default.attributesOfItem(atPath: stage + "/etc/lookout/hall.http-token")
        #expect((token[.posixPermissions] as? Int) == 0o600 && (token[.size] as? Int ?? 0) > 16, "a token made, readable by root only")
        #expect(FileManager.default.fileExists(atPath: stage + "/etc/systemd/system/lookout@.service"))
        // The installed binary finds the installed models (share/lookout/models beside bin/),
        // run from a folder with none.
        let binary = stage + "/usr/local/bin/lookout"
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "-i", Fixtures.path("sample.mjpeg"), "--events", "changes", "-q"]
        process.currentDirectoryURL = URL(fileURLWithPath: stage)
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(lines.contains(#""kind":"face_enter""#), "no face: the models were not found")
        // Run again: nothing an operator wrote is overwritten.
        try "LOOKOUT_ARGS=--quiet\n".write(toFile: stage + "/etc/lookout/hall.env", atomically: true, encoding: .utf8)
        try "cameras:\n  hall:\n    input: /dev/video2\n".write(toFile: config, atomically: true, encoding: .utf8)
        _ = try Self.run(Fixtures.packageRoot + "/scripts/install", ["--instance", "hall", "--stats"], environment: ["DESTDIR": stage, "LOOKOUT_BINARY": lookoutBinary])
        #expect(try String(contentsOfFile: stage + "/etc/lookout/hall.env", encoding: .utf8) == "LOOKOUT_ARGS=--quiet\n")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "cameras:\n  hall:\n    input: /dev/video2\n")
    }

    @Test func anHTTPTokenCredentialGuardsALANAddressAsTheOptionWould() throws {
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-credentials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: credentials) }
        let arguments = ["run", "-i", Fixtures.path("sample.mjpeg"), "--http", "0.0.0.0:0", "-q"]
        // Without a token a LAN address is refused...
        let refused = try lookout(arguments, environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(refused.status == 64, "\(refused.stderr)")
        // ...with the credential systemd hands over, it serves, and wants the token.
        try "s3cret-token\n".write(to: credentials.appendingPathComponent("http-token"), atomically: true, encoding: .utf8)
        let run = try BackgroundProcess(lookoutBinary, ["run", "-i", Fixtures.path("sample.mjpeg"), "--http", "0.0.0.0:0"],
                                        environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        defer { run.signal(SIGKILL) }
        #expect(run.errors.wait(timeout: 60) { $0.contains { $0.contains("web view at") } }, "\(run.errors.lines)")
        let line = try #require(run.errors.lines.first { $0.contains("web view at") })
        let port = try #require(line.split(separator: ":").last.map { String($0.prefix { $0.isNumber }) })
        #expect(try httpGet("http://127.0.0.1:\(port)/api/status").status == 401)
        #expect(try httpGet("http://127.0.0.1:\(port)/api/status", ["-H", "Authorization: Bearer s3cret-token"]).status == 200)
        run.signal(SIGINT)
        #expect(run.waitForExit() == 0)
    }
}
