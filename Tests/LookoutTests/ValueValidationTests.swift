import Foundation
import LookoutHTTP
import LookoutService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Values from options, files and the environment are checked before any library sees them:
/// each refusal is one line on standard error naming the option, what is wrong and what is
/// allowed, with its documented exit status. Every run has a deadline: a FIFO must not hang it.
@Suite("Value validation", .serialized)
struct ValueValidationTests {
    /// Runs lookout (30 s at most) and returns its status and its one stderr line; records an
    /// issue when there is not exactly one.
    private func refusal(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, line: String) {
        let result = try lookout(arguments, environment: environment, timeout: 30)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines.last == "", "exactly one line: \(result.stderr)")
        return (result.status, String(lines.first ?? ""))
    }

    private var sample: String { Fixtures.path("sample.mjpeg") }

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lookout-values-\(UUID().uuidString)-\(name)").path
    }

    /// A new empty folder; the caller removes it.
    private func temporaryFolder(_ name: String) throws -> String {
        let folder = temporaryPath(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    // MARK: Numbers, times and sizes

    /// (arguments after `run --input sample`, option, the range the sentence must state)
    static let outOfRange: [([String], String, String)] = [
        (["--record-keep", "-1"], "--record-keep", "1M to 1024T"),
        (["--record-keep", "12Q"], "--record-keep", "1M to 1024T"),
        (["--pre-roll", "100h"], "--pre-roll", "0s to 60s"),
        (["--post-roll", "-5s"], "--post-roll", "0s to 3600s"),
        (["--segment", "0.5"], "--segment", "1s to 24h"),
        (["--record-max-age", "-1d"], "--record-max-age", "1s to 3650d"),
        (["--record-memory", "64G"], "--record-memory", "1M to 16G"),
        (["--buffers", "-1"], "--buffers", "2 to 32"),
        (["--watchdog", "abc"], "--watchdog", "0.2 to 3600 seconds"),
        (["--fps", "0"], "--fps", "0.001 to 1000"),
        (["--density", "99"], "--density", "1 to 16"),
        (["--max-pixels", "-5"], "--max-pixels", "4096 (64x64) to 1073741824 (32768x32768) pixels"),
        (["--face-width", "10"], "--face-width", "0 (never) or 64 to 16384 pixels"),
        (["--face-rate", "nan"], "--face-rate", "0 to 1000"),
        (["--code-budget", "1e9"], "--code-budget", "0 to 60000 ms"),
        (["--motion-threshold", "-1"], "--motion-threshold", "0 to 255"),
        (["--dedupe", "-2s"], "--dedupe", "0s to 24h"),
        (["--presence-on", "-1"], "--presence-on", "1 to 100"),
        (["--hook-timeout", "0"], "--hook-timeout", "1ms to 24h"),
        (["--hook-jobs", "99999999999999999999"], "--hook-jobs", "1 to 64"),
        (["--snapshot-keep", "-3"], "--snapshot-keep", "1 to 10000000"),
        (["--mqtt-queue", "0"], "--mqtt-queue", "1 to 1000000"),
        (["--preview-fps", "inf"], "--preview-fps", "0.1 to 30"),
    ]

    @Test(arguments: outOfRange)
    func aNumberOutOfRangeOrMalformedIsRefusedNamingTheOptionAndTheRange(arguments: [String], option: String, range: String) throws {
        let (status, line) = try refusal(["run", "--input", sample] + arguments)
        #expect(status == 64)
        #expect(line.hasPrefix("lookout: The value '\(arguments[1])' is invalid for '\(option) <"), "\(line)")
        #expect(line.contains("allowed \(range)"), "\(line)")
    }

    @Test func scanChecksItsNumbersToo() throws {
        let (status, line) = try refusal(["scan", "--min-face", "-1", Fixtures.path("qr-mono.y4m")])
        #expect(status == 64)
        #expect(line.contains("'--min-face <pixels>'") && line.contains("allowed 1 to 16384 pixels"), "\(line)")
    }

    @Test func aSizeControlOrPortOutOfRangeNamesItsRange() throws {
        let size = try refusal(["run", "--input", sample, "--size", "-1x5"])
        #expect(size.status == 64)
        #expect(size.line == "lookout: The value '-1x5' is invalid for '--size <WxH>': allowed WIDTHxHEIGHT, each side 1 to 16384, e.g. 1280x720. See lookout --help.")
        let control = try refusal(["run", "--input", sample, "--control", "brightness=99999999999"])
        #expect(control.status == 64)
        #expect(control.line.contains("control brightness: '99999999999' is not a whole number from -2147483648 to 2147483647"), "\(control.line)")
        let form = try refusal(["run", "--input", sample, "--control", "brightness"])
        #expect(form.line == "lookout: --control takes name=value, e.g. brightness=128, not 'brightness'. See lookout --help.")
        let port = try refusal(["run", "--input", sample, "--http", "99999"])
        #expect(port.status == 64)
        #expect(port.line.hasPrefix("lookout: --http takes [ADDR:]PORT with PORT 0 to 65535 "), "\(port.line)")
    }

    /// The options whose value is more than a number (kinds, a rectangle, polygons, camera
    /// controls) are read by their key, as the file's values are: the same refusals, in the same words.
    @Test(arguments: [
        (["--types", "qr,nope"], "detection:\n  types: qr,nope\n"),
        (["--rect-of-interest", "0.5,0.5,0.9,0.9"], "detection:\n  rect-of-interest: 0.5,0.5,0.9,0.9\n"),
        (["--mask", "0,0 2,0 1,1"], "cameras:\n  a:\n    input: SAMPLE\n    masks: [\"0,0 2,0 1,1\"]\n"),
        (["--zone", "desk=0,0 1,0"], "cameras:\n  a:\n    input: SAMPLE\n    zones: {desk: \"0,0 1,0\"}\n"),
        (["--control", "brightness=1.5"], "capture:\n  control: {brightness: \"1.5\"}\n"),
    ])
    func anOptionRefusesWhatItsKeyRefusesInTheFile(arguments: [String], file: String) throws {
        let (status, line) = try refusal(["run", "--input", sample] + arguments)
        #expect(status == 64)
        let option = arguments[0]
        #expect(line.hasPrefix("lookout: The value '\(arguments[1])' is invalid for '\(option) <"), "\(line)")
        let problem = try #require(throws: ConfigurationProblems.self) { try ConfigurationFile.parse(file.replacing("SAMPLE", with: sample), file: "lookout.yml") }
        let message = try #require(problem.problems.first?.message)
        // What exactly is wrong, when the key says more than its range; else what it allows.
        let key = try #require(ConfigurationKey.all.first { "--" + $0.option == option })
        let words = message.contains("is not allowed (allowed: ") ? "allowed " + key.allowed : message
        #expect(line.hasSuffix(": \(words). See lookout --help."), "\(line) against the file's \(message)")
    }

    @Test func optionsThatGoTogetherAreCheckedByTheFilesRulesWithoutAFile() throws {
        // The rule between two keys is ConfigurationCheck's, in the option's words.
        let window = try refusal(["run", "--input", sample, "--presence-window", "0"])
        #expect(window.status == 64)
        #expect(window.line == "lookout: --presence-window: must be above 0 when presence-on is above 1. See lookout --help.")
        // With presence turning on at the first analysis, no window is needed.
        let once = try lookout(["run", "--input", sample, "--presence-window", "0", "--presence-on", "1", "--types", "qr", "--quiet"])
        #expect(once.status == 0, "\(once.stderr)")
        // A section's option alone would do nothing.
        let preRoll = try refusal(["run", "--input", sample, "--pre-roll", "3s"])
        #expect(preRoll.status == 64)
        #expect(preRoll.line == "lookout: --pre-roll needs --record. See lookout --help.")
    }

    // MARK: Input names

    @Test(arguments: ["a/b", "..", "café", "", String(repeating: "n", count: 65)])
    func anInputNameThatBreaksTheRuleIsRefusedAsAName(name: String) throws {
        let (status, line) = try refusal(["run", "--input", name + "=" + sample])
        #expect(status == 64)
        #expect(line == "lookout: --input: camera name '\(name)' is not allowed; a name is 1 to 64 letters, digits, _ and - (a path that holds '=' is given as NAME=PATH). See lookout --help.")
    }

    @Test func anExistingPathWithAnEqualsSignIsAPathAndNAMEEqualsPATHReachesItToo() throws {
        let folder = try temporaryFolder("inputs")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/we=ird.mjpeg"
        try FileManager.default.copyItem(atPath: sample, toPath: path)
        let expected = try Fixtures.sampleExpectation()
        for argument in [path, "hall=" + path] {
            let result = try lookout(["run", "--input", argument, "--stats", "--quiet", "--types", "qr"], timeout: 120)
            #expect(result.status == 0, "\(argument): \(result.stderr)")
            let stats = try jsonObjects(result).filter { $0["kind"] as? String == "stats" }
            #expect(stats.count == 1)
            #expect(stats.first?["frames_read"] as? Int == expected.frames, "\(argument): \(stats)")
        }
    }

    // MARK: MQTT values

    @Test func anMQTTTopicPrefixOverItsLimitIsRefused() throws {
        let (status, line) = try refusal(["run", "--input", sample, "--mqtt", "mqtt://127.0.0.1:1/" + String(repeating: "a", count: 100_000)])
        #expect(status == 64)
        #expect(line == "lookout: --mqtt: the topic prefix is 100000 bytes long; allowed: 1 to 512 bytes of UTF-8 text without control characters. See lookout --help.")
        let home = try refusal(["run", "--input", sample, "--mqtt", "mqtt://127.0.0.1:1/t", "--ha-prefix", String(repeating: "h", count: 513)])
        #expect(home.status == 64)
        #expect(home.line.hasPrefix("lookout: --ha-prefix is 513 bytes long; allowed: 1 to 512 bytes"), "\(home.line)")
    }

    /// A client ID given as text, or as a length of `c`s (70,000 of them would flood the test log).
    @Test(arguments: [("70000", "is 70000 bytes long"), ("64", "is 64 bytes long"), ("a\u{7}b", "holds the control character U+0007")])
    func anMQTTClientIDThatNoConnectionCanUseIsRefused(given: String, problem: String) throws {
        let clientID = Int(given).map { String(repeating: "c", count: $0) } ?? given
        let (status, line) = try refusal(["run", "--input", sample, "--mqtt", "mqtt://127.0.0.1:1/t", "--mqtt-client-id", clientID])
        #expect(status == 64)
        #expect(line == "lookout: --mqtt-client-id \(problem); allowed: 1 to 63 bytes of UTF-8 text without control characters (each camera connects as ID-CAMERA, within 128). See lookout --help.")
    }

    @Test func anMQTTPasswordFromTheEnvironmentIsChecked() throws {
        let (status, line) = try refusal(["run", "--input", sample, "--mqtt", "mqtt://127.0.0.1:1/t"],
                                         environment: ["LOOKOUT_MQTT_PASSWORD": "pass\u{1B}word"])
        #expect(status == 64)
        #expect(line == "lookout: LOOKOUT_MQTT_PASSWORD holds the control character U+001B; allowed: 1 to 65535 bytes of UTF-8 text without control characters")
    }

    @Test func anMQTTPasswordFileOverMQTTsLimitIsRefused() throws {
        let path = temporaryPath("password")
        try Data(repeating: UInt8(ascii: "p"), count: 70_000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, line) = try refusal(["run", "--input", sample, "--mqtt", "mqtt://127.0.0.1:1/t", "--mqtt-password-file", path])
        #expect(status == 64)
        #expect(line == "lookout: the MQTT password in \(path) is longer than 65535 bytes, the most MQTT carries")
    }

    // MARK: Secret files: only a regular file is read

    /// The option for a secret file and the arguments it goes with.
    static let secretOptions: [(option: String, arguments: [String], what: String)] = [
        ("--http-token-file", ["--http", "127.0.0.1:0"], "cannot read the HTTP token file"),
        ("--mqtt-password-file", ["--mqtt", "mqtt://127.0.0.1:1/t"], "cannot read the MQTT password file"),
    ]

    @Test(arguments: secretOptions)
    func aFIFOAsASecretFileIsRefusedWithoutWaitingForAWriter(secret: (option: String, arguments: [String], what: String)) throws {
        let fifo = temporaryPath("fifo")
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        defer { unlink(fifo) }
        let (status, line) = try refusal(["run", "--input", sample] + secret.arguments + [secret.option, fifo])
        #expect(status == 66)
        #expect(line == "lookout: \(secret.what) \(fifo): it is a FIFO, not a regular file")
    }

    @Test(arguments: secretOptions)
    func aDeviceOrADirectoryAsASecretFileIsRefused(secret: (option: String, arguments: [String], what: String)) throws {
        for (path, kind) in [("/dev/zero", "a device"), ("/dev/null", "a device"), ("/tmp", "a directory")] {
            let (status, line) = try refusal(["run", "--input", sample] + secret.arguments + [secret.option, path])
            #expect(status == 66)
            #expect(line == "lookout: \(secret.what) \(path): it is \(kind), not a regular file")
        }
    }

    @Test(arguments: ["--mqtt-ca", "--mqtt-cert", "--mqtt-key"])
    func aFIFOAsATLSFileIsRefusedBeforeOpenSSLWaitsOnIt(option: String) throws {
        let fifo = temporaryPath("fifo")
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        defer { unlink(fifo) }
        let pair = option == "--mqtt-ca" ? [] : [option == "--mqtt-cert" ? "--mqtt-key" : "--mqtt-cert", sample]
        let (status, line) = try refusal(["run", "--input", sample, "--mqtt", "mqtts://127.0.0.1:1/t", option, fifo] + pair)
        #expect(status == 66)
        #expect(line == "lookout: cannot read the \(option) file \(fifo): it is a FIFO, not a regular file")
    }

    @Test func aSystemdCredentialThatIsAFIFOIsRefusedToo() throws {
        let directory = try temporaryFolder("credentials")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #require(mkfifo(directory + "/http-token", 0o600) == 0)
        let (status, line) = try refusal(["run", "--input", sample, "--http", "127.0.0.1:0"], environment: ["CREDENTIALS_DIRECTORY": directory])
        #expect(status == 66)
        #expect(line == "lookout: cannot read the HTTP token file \(directory)/http-token: it is a FIFO, not a regular file")
    }

    // MARK: The token

    @Test func aTokenLongerThanARequestCarriesIsRefusedWithTheBound() throws {
        #expect(TokenLimit.maximumBytes == 6137)
        let path = temporaryPath("token")
        try (String(repeating: "t", count: 6138) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, line) = try refusal(["run", "--input", sample, "--http", "127.0.0.1:0", "--http-token-file", path])
        #expect(status == 64)
        #expect(line == "lookout: the HTTP token in \(path) is 6138 bytes long; a request carries at most 6137 (1 to 6137 printable ASCII characters)")
    }

    @Test func aTokenThatIsNotPrintableASCIIIsRefused() throws {
        let path = temporaryPath("token")
        try Data("caf\u{E9}\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, line) = try refusal(["run", "--input", sample, "--http", "127.0.0.1:0", "--http-token-file", path])
        #expect(status == 64)
        #expect(line == "lookout: the HTTP token in \(path) holds the byte 0xC3; a token is 1 to 6137 printable ASCII characters")
    }

    @Test func aTokenOfTheLongestLengthLogsInBothWays() throws {
        let token = String((0..<TokenLimit.maximumBytes).map { index in Character(Unicode.Scalar(UInt8(0x21 + index % 94))) })
            .replacingOccurrences(of: ":", with: "-")
        let path = temporaryPath("token")
        try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, base) = try startLookoutWithHTTP(["--input", sample, "--http-token-file", path])
        #expect(try httpGet(base + "/api/status").status == 401)
        #expect(try httpGet(base + "/api/status", ["-H", "Authorization: Bearer " + token]).status == 200)
        #expect(try httpGet(base + "/api/status", ["-u", ":" + token]).status == 200)
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: 30) == 0)
    }
}
