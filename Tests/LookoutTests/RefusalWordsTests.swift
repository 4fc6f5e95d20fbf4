import Foundation
import Lookout
import LookoutService
import Testing

/// Refusals said in Lookout's words, each with its documented exit status: a device that is not a
/// camera, a broker address list with an address missing its scheme; and the docs say what SIGHUP does.
@Suite struct RefusalWordsTests {
    @Test func aCharacterDeviceThatIsNotACameraIsNamedForWhatItIs() throws {
        let result = try lookout(["run", "--input", "/dev/urandom"])
        #expect(result.status == 1)
        #expect(result.stderr == "lookout: /dev/urandom is a character device but not a video device (VIDIOC_QUERYCAP: Invalid argument); Lookout reads V4L2 cameras (/dev/videoN: `lookout devices` lists them), MJPEG and Y4M files and pipes, video files and URLs through ffmpeg, and - for standard input\n")
    }

    /// Commas split addresses only before `scheme://`; one in a password is part of it; any other
    /// is an address without its scheme, refused rather than looked up as a host name.
    @Test func anAddressWithoutItsSchemeAfterACommaIsRefused() throws {
        for text in ["mqtt://a:1883,b:1883/p", "mqtt://a,b", "mqtt://a:1883/site,b:1883/p", "mqtt://u:p,w@a:1883,b", "mqtt://host/site,door"] {
            #expect(throws: MQTTError.self, "\(text)") { try MQTTBrokerList(text) }
            do { _ = try MQTTBrokerList(text) } catch {
                #expect(error.description.contains("a comma outside the user name and password must begin the next address, with its scheme"),
                        "\(error.description)")
            }
        }
        let withComma = try MQTTBrokerList("mqtt://u:pa,ss@a:1883,mqtt://v:x,y,z@b:1884/p")
        #expect(withComma.addresses.map(\.password) == ["pa,ss", "x,y,z"])
        #expect(withComma.addresses.map(\.host) == ["a", "b"])
        // The file's list form: each item needs its scheme (joined, one would become a password).
        #expect(throws: ConfigurationProblems.self) {
            try ConfigurationFile.parse("mqtt:\n  mqtt: [mqtt://ok:1883, \"u:p@b:1883\"]\n", file: "lookout.yml", environment: [:])
        }

        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--mqtt", "mqtt://a:1883,b:1883/p"])
        #expect(result.status == 64)
        #expect(result.stderr == "lookout: invalid MQTT address 'mqtt://a:1883,b:1883/p': a comma outside the user name and password must begin the next address, with its scheme: 'b:1883/p' has none (mqtt://a:1883,mqtt://b:1883/prefix; a topic prefix holds no comma). See lookout --help.\n")
    }

    @Test func theDocsSayWhatSIGHUPDoes() throws {
        let text = try String(contentsOfFile: Fixtures.packageRoot + "/docs/command-line.md", encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| SIGHUP |") })
        #expect(!row.contains("not supported"))
        // The words the binary says (RunCommand, StopSignals).
        for words in ["reload refused, nothing changed: FILE:LINE:COLUMN:", "reloaded FILE:",
                      "SIGHUP: there is no configuration file to reload (run with --config FILE); ignored"] {
            #expect(row.contains(words), "\(words)")
        }
    }
}
