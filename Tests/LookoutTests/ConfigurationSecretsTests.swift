import Foundation
import Lookout
import LookoutService
import Testing

/// Secrets stay secret in every message that quotes a value: passwords in addresses (given
/// literally or through `${VAR}`), the values of secret-looking variables, and of any variable in
/// a secret key; in `config check`, at the start of `run` and in a reload's refusal.
@Suite struct ConfigurationSecretsTests {
    static let password = "Hunter2-s3cr3t"

    private func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
        configurationProblems(text, environment: environment)
    }

    /// Each refused address, with the password literal and through a variable named like a secret
    /// and like anything else (a secret key's variables are all hidden).
    @Test(arguments: [
        // A port that is not a number.
        ("mqtt://user:PW@broker.local:notaport/lookout", "'mqtt://user:***@broker.local:notaport/lookout': the port must be a number"),
        // A password with an unencoded '/' (read as the host's port).
        ("mqtt://user:PW/x@broker.local:1883/lookout", "'mqtt://user:***@broker.local:1883/lookout': the port must be a number"),
        // A comma in the password, and a second address without its scheme.
        ("mqtt://user:a,PW@broker.local:1883,other:1883/p", "has none"),
        // Mixed schemes: the whole list is quoted.
        ("mqtt://user:PW@a:1883,mqtts://b:8883", "'mqtt://user:***@a:1883,mqtts://b:8883': mqtt:// and mqtts:// addresses are mixed"),
        // A % that is not an escape.
        ("mqtt://user:PW%zz@a:1883", "'mqtt://user:***@a:1883': a % in the user name or password"),
        // No scheme at all.
        ("user:PW@a:1883", "'user:***@a:1883': it must start with mqtt:// or mqtts://"),
        // A topic prefix over its bound: refused by the value kind's own check, the value quoted.
        ("mqtt://user:PW@a:1883/" + String(repeating: "t", count: 600), "the topic prefix of 'mqtt://user:***@a:1883/tttttt"),
    ])
    func aRefusedAddressNeverShowsItsPassword(address: String, shown: String) {
        for (written, environment) in [(address.replacingOccurrences(of: "PW", with: Self.password), [String: String]()),
                                       (address.replacingOccurrences(of: "PW", with: "${MQTT_PASSWORD}"), ["MQTT_PASSWORD": Self.password]),
                                       (address.replacingOccurrences(of: "PW", with: "${BROKER_WORD}"), ["BROKER_WORD": Self.password])] {
            let found = problems("mqtt:\n  mqtt: \(written)\n", environment: environment).joined(separator: "\n")
            #expect(!found.isEmpty, "\(written)")
            #expect(!found.contains(Self.password) && !found.contains("s3cr3t"), "\(found)")
            let variable = environment.keys.first.map { "${\($0)}" }
            #expect(found.contains(shown) || variable.map { found.contains(shown.replacingOccurrences(of: "***", with: $0)) } == true,
                    "\(found)")
        }
        // In a list of addresses too.
        let listed = problems("mqtt:\n  mqtt: [\"mqtt://ok:1883\", \"\(address.replacingOccurrences(of: "PW", with: Self.password))\"]\n")
        #expect(!listed.isEmpty && !listed.joined().contains("s3cr3t"), "\(listed)")
    }

    @Test func aSecretLookingVariableIsShownAsWritten() {
        let environment = ["MODEL_TOKEN": Self.password, "PLAIN": "plain-value"]
        // In a path that does not exist (the check quotes it).
        #expect(problems("detection:\n  face-model: /nonexistent/${MODEL_TOKEN}/${PLAIN}.xml\n", environment: environment)
                == ["lookout.yml:2:3: detection.face-model: '/nonexistent/${MODEL_TOKEN}/plain-value.xml': No such file or directory"])
        // In a refused value, in a list, and past the length a refusal quotes.
        #expect(problems("detection:\n  types: [qr, \"x${MODEL_TOKEN}\"]\n", environment: environment)
                == ["lookout.yml:2:10: detection.types: 'x${MODEL_TOKEN}' in the list is not allowed (allowed: a list of "
                    + (MetadataObjectType.allCodeTypes + [.face]).map(\.rawValue).joined(separator: ", ") + ")"])
        let long = String(repeating: "a", count: 50) + "${MODEL_TOKEN}"
        let found = problems("detection:\n  density: \(long)\n", environment: environment)
        #expect(found == ["lookout.yml:2:12: detection.density: '\(String(repeating: "a", count: 50))${MODEL...' is not allowed (allowed: 1 to 16)"])
        #expect(!found.joined().contains("Hunter"))
        // PWD is the working directory, not a secret.
        #expect(problems("detection:\n  face-model: ${PWD}/nonexistent.xml\n", environment: ["PWD": "/nonexistent-dir"])
                == ["lookout.yml:2:3: detection.face-model: '/nonexistent-dir/nonexistent.xml': No such file or directory"])
        #expect(SecretRedaction.looksSecret("mqtt_password") && SecretRedaction.looksSecret("API_KEY")
                && SecretRedaction.looksSecret("CREDENTIALS_DIRECTORY") && !SecretRedaction.looksSecret("BROKER"))
    }

    @Test func theRedactionOfAnAddressHidesAtLeastThePassword() {
        for (given, shown) in [("mqtt://u:p@h:1/x", "mqtt://u:***@h:1/x"), ("mqtt://u:p/q@h/x", "mqtt://u:***@h/x"),
                               ("mqtt://h:1883/x", "mqtt://h:1883/x"), ("mqtt://u@h", "mqtt://u@h"), ("u:p@h", "u:***@h"),
                               ("mqtt://u:p@q@h", "mqtt://u:***@h"), ("mqtt://:p@h", "mqtt://:***@h")] {
            #expect(MQTTBrokerAddress.redacted(given) == shown, "\(given)")
        }
        #expect(MQTTBrokerList.redacted("mqtt://u:p,q@a,mqtt://v:w@b") == "mqtt://u:***@a,mqtt://v:***@b")
        do { _ = try MQTTBrokerList("mqtt://u:\(Self.password)@a:x") } catch {
            guard case .invalidURL(let stored, _) = error else { Issue.record("\(error)"); return }
            #expect(stored == "mqtt://u:***@a:x")
        }
    }

    // MARK: The command

    private func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "lookout-secrets-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The file with a refused address, its password literal or from `${MQTT_PASSWORD}`.
    private static func refusedFile(literal: Bool, input: String) -> String {
        """
        mqtt:
          mqtt: mqtt://user:\(literal ? password : "${MQTT_PASSWORD}")@broker.local:notaport/lookout
        cameras:
          door:
            input: \(input)

        """
    }

    @Test(arguments: [true, false])
    func configCheckAndRunNeverShowThePassword(literal: Bool) throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/lookout.yml"
        try Self.refusedFile(literal: literal, input: Fixtures.path("sample.mjpeg")).write(toFile: file, atomically: true, encoding: .utf8)
        let expected = "lookout: \(file):2:9: mqtt.mqtt: invalid MQTT address 'mqtt://user:***@broker.local:notaport/lookout': the port must be a number from 1 to 65535\n"
        let environment = ["MQTT_PASSWORD": Self.password]
        for arguments in [["config", "check", file], ["run", "--config", file], ["config", "print", file]] {
            let result = try lookout(arguments, environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == expected, "\(arguments)")
            #expect(!result.stderr.contains(Self.password) && !String(decoding: result.stdout, as: UTF8.self).contains(Self.password))
        }
        // The same address on the command line.
        let option = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--mqtt", "mqtt://user:\(Self.password)@broker.local:notaport/x"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("'mqtt://user:***@broker.local:notaport/x'") && !option.stderr.contains(Self.password), "\(option.stderr)")
    }

    @Test(arguments: [true, false])
    func aRefusedReloadNeverShowsThePassword(literal: Bool) throws {
        let folder = try folder()
        let clip = try ConfigReloadCommandTests.longClip(seconds: 60)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: clip)
        }
        let file = folder + "/lookout.yml"
        try "capture:\n  realtime: true\ndetection:\n  types: [qr]\ncameras:\n  door:\n    input: \(clip)\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--config", file], environment: ["MQTT_PASSWORD": Self.password])
        defer { if process.isRunning { process.signal(SIGKILL) } }
        #expect(process.output.wait(timeout: 60, until: { !$0.isEmpty }))
        try Self.refusedFile(literal: literal, input: clip).write(toFile: file, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        let refusal = "lookout: reload refused, nothing changed: \(file):2:9: mqtt.mqtt: invalid MQTT address 'mqtt://user:***@broker.local:notaport/lookout': the port must be a number from 1 to 65535"
        #expect(process.errors.wait(timeout: 60, until: { $0.contains(refusal) }), "\(process.errors.lines)")
        process.signal(SIGINT)
        #expect(process.waitForExit(timeout: 60) == 0)
        #expect(!process.errors.lines.joined().contains(Self.password) && !process.output.lines.joined().contains(Self.password))
    }

    /// A password in the broker's URL is warned about as the operator wrote it: a command line's
    /// is in ps(1) for everyone, a file's is as safe as the file; each warning names its own way out.
    @Test func aPasswordInTheBrokersURLIsWarnedAboutWhereItWasWritten() async throws {
        let state = try ScratchFolder()
        let url = "mqtt://user:\(Self.password)@127.0.0.1:1/lookout"
        func warnings(file mqttInFile: Bool) async throws -> [String] {
            let lines = Locked([String]())
            let environment = Service.Environment(diagnostics: { line in lines.withLock { $0.append(line) } })
            var overrides = ConfigurationSettings()
            if !mqttInFile { overrides.mqtt = url }
            let configuration = try ConfigurationFile.parse("""
                mqtt:
                  state-dir: \(state.path)
                \(mqttInFile ? "  mqtt: \(url)" : "")
                cameras:
                  door:
                    input: \(Fixtures.path("sample.mjpeg"))
                """, file: "lookout.yml")
            let service = try Service(configuration: configuration, overrides: overrides, environment: environment)
            await service.finish()
            return lines.withLock { $0 }.filter { $0.contains("password") }
        }
        let commandLine = try await warnings(file: false)
        #expect(commandLine.count == 1 && commandLine[0].contains("--mqtt is visible to every user")
                && commandLine[0].contains("--mqtt-password-file"), "\(commandLine)")
        let file = try await warnings(file: true)
        #expect(file.count == 1 && file[0].contains("mqtt's URL") && file[0].contains("mqtt-password-file")
                && !file[0].contains("--"), "\(file)")
        #expect(!(commandLine + file).joined().contains("s3cr3t"))
    }
}

/// The problems of configuration `text` (named lookout.yml), as sentences; none when it is valid.
func configurationProblems(_ text: String, environment: [String: String] = [:], checksFiles: Bool = true) -> [String] {
    do {
        _ = try ConfigurationFile.parse(text, file: "lookout.yml", environment: environment, checksFiles: checksFiles)
        return []
    } catch {
        return error.problems.map(\.description)
    }
}
