import Foundation
import Lookout
import LookoutService
import Testing

/// The configuration file: read whole, every problem said as FILE:LINE:COLUMN: key.path: what.
@Suite struct ConfigurationFileTests {
    /// The problems `text` gives, as sentences.
    private func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try ConfigurationFile.parse(text, file: "lookout.yml", environment: environment)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    private let clip = Fixtures.path("events-codes.mjpeg")

    @Test func aValidFileGivesEachCameraItsSettings() throws {
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr, ean13]
              face-rate: 5
            events:
              dedupe: 500ms
            cameras:
              door:
                input: \(clip)
                size: 1920x1080
                types: qr
                rect-of-interest: [0.25, 0.25, 0.5, 0.5]
              hall:
                input: \(clip)
                types: [face]
                face-rate: 2
                control: {focus_automatic_continuous: 0, brightness: 128}
            """, file: "lookout.yml")
        #expect(configuration.cameras.map(\.name) == ["door", "hall"])
        let door = try #require(configuration.camera(named: "door"))
        let hall = try #require(configuration.camera(named: "hall"))
        let doorSettings = configuration.effectiveSettings(of: door)
        let hallSettings = configuration.effectiveSettings(of: hall)
        #expect(doorSettings.types == [.qr])
        #expect(doorSettings.size == FrameSize(width: 1920, height: 1080))
        #expect(doorSettings.rectOfInterest == Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        #expect(doorSettings.faceRate == 5)
        #expect(doorSettings.dedupe == DurationValue(seconds: 0.5))
        #expect(hallSettings.types == [.face])
        #expect(hallSettings.faceRate == 2)
        #expect(hallSettings.rectOfInterest == nil)
        // Controls keep the order written: one may take effect only after another.
        #expect(hallSettings.controls == [CameraControlSetting(name: "focus_automatic_continuous", value: 0), CameraControlSetting(name: "brightness", value: 128)])
        // Fixed defaults are filled in.
        #expect(hallSettings.presenceOff == DurationValue(seconds: 5))
        #expect(hallSettings.buffers == 4)
    }

    @Test func everyBrokenFileSaysWhereAndWhat() {
        let cases: [(String, String)] = [
            ("detection:\n  typs: [qr]\n", "lookout.yml:2:3: detection.typs: unknown key; did you mean 'types'?"),
            ("detecton:\n  types: [qr]\n", "lookout.yml:1:1: detecton: unknown section; did you mean 'detection'?"),
            ("detection:\n  mqtt-queue: 5\n", "lookout.yml:2:3: detection.mqtt-queue: belongs in the mqtt section, not detection"),
            ("detection:\n  face-rate: -3\n", "lookout.yml:2:14: detection.face-rate: '-3' is not allowed (allowed: 0 to 1000)"),
            ("detection:\n  density: many\n", "lookout.yml:2:12: detection.density: 'many' is not allowed (allowed: 1 to 16)"),
            ("detection:\n  types: [qr, bogus]\n",
             "lookout.yml:2:10: detection.types: 'bogus' in the list is not allowed (allowed: a list of "
                + (MetadataObjectType.allCodeTypes + [.face]).map(\.rawValue).joined(separator: ", ") + ")"),
            ("cameras:\n  a:\n    input: \(clip)\n  a:\n    input: \(clip)\n", "lookout.yml:4:3: cameras.a: a second camera named 'a' (first at line 2)"),
            ("cameras:\n  front door:\n    input: \(clip)\n", "lookout.yml:2:3: cameras.front door: a camera name is 1 to 64 letters, digits, _ and -"),
            ("cameras:\n  door:\n    types: [qr]\n",
             "lookout.yml:2:3: cameras.door: has no input: (a device such as /dev/video0, a file, - for standard input, or a URL)"),
            ("cameras:\n  door:\n    input: \(clip)\n    mqtt: mqtt://broker\n",
             "lookout.yml:4:5: cameras.door.mqtt: is a global setting: write it in the mqtt section, for every camera"),
            ("detection:\n  face-model: /nonexistent/cascade.xml\n",
             "lookout.yml:2:3: detection.face-model: '/nonexistent/cascade.xml': No such file or directory"),
            ("cameras:\n  door:\n    input: [\(clip)\n", "lookout.yml:4:1: not valid YAML: did not find expected ',' or ']'"),
            ("mqtt:\n  mqtt-user: bob\n", "lookout.yml:2:3: mqtt.mqtt-user: goes with mqtt: (the broker's address)"),
            ("snapshots:\n  snapshots: ${LOOKOUT_TEST_UNSET}\n",
             "lookout.yml:2:14: the environment variable LOOKOUT_TEST_UNSET in '${LOOKOUT_TEST_UNSET}' is not set (write $$ for a $)"),
            ("detection: 5\n", "lookout.yml:1:12: detection: a section is a map of keys, not a single value"),
            ("types: [qr]\n", "lookout.yml:1:1: types: belongs in the detection section (detection: types: ...)"),
            ("events:\n  presence-on: 3\n  presence-window: 0s\n", "lookout.yml:3:3: events.presence-window: must be above 0 when presence-on is above 1"),
            ("cameras:\n  a:\n    input: \(clip)\n    masks:\n      - [[0, 0], [1.5, 0], [1, 1]]\n",
             "lookout.yml:5:7: cameras.a.masks: mask 1: a polygon is refused: point 2's x is 1.5; coordinates are fractions of the frame, 0 to 1 (allowed: at least 3 points [x, y] within 0...1)"),
            ("cameras:\n  a:\n    input: \(clip)\n    zones:\n      desk: [[0, 0], [1, 0]]\n",
             "lookout.yml:5:7: cameras.a.zones: zone desk: a polygon is refused: a polygon needs at least 3 points; this one has 2 (allowed: at least 3 points [x, y] within 0...1)"),
            ("- a list\n", "lookout.yml:1:1: the file must hold a map of sections (capture:, detection:, ..., cameras:), not a list"),
        ]
        for (text, expected) in cases {
            #expect(problems(text) == [expected], "\(text)")
        }
    }

    @Test func allProblemsAreReportedAtOnceInFileOrder() {
        let found = problems("""
            detection:
              typs: [qr]
              face-rate: 2000
            cameras:
              door:
                input: /nonexistent/door.mjpeg
                size: big
            """)
        #expect(found == [
            "lookout.yml:2:3: detection.typs: unknown key; did you mean 'types'?",
            "lookout.yml:3:14: detection.face-rate: '2000' is not allowed (allowed: 0 to 1000)",
            "lookout.yml:6:5: cameras.door.input: '/nonexistent/door.mjpeg': No such file or directory",
            "lookout.yml:7:11: cameras.door.size: 'big' is not allowed (allowed: WIDTHxHEIGHT, each side 1 to 16384, e.g. 1280x720)",
        ])
    }

    @Test func environmentVariablesAreReplaced() throws {
        let configuration = try ConfigurationFile.parse("""
            mqtt:
              mqtt: mqtt://${BROKER}:1883/lookout
              mqtt-password-file: ${CREDENTIALS_DIRECTORY}/mqtt-password
            snapshots:
              snapshots: /var/lib/$$lookout
            """, file: "lookout.yml", environment: ["BROKER": "broker.local", "CREDENTIALS_DIRECTORY": "/run/credentials/lookout.service"],
            checksFiles: false)
        #expect(configuration.settings.mqtt == "mqtt://broker.local:1883/lookout")
        #expect(configuration.settings.mqttPasswordFile == "/run/credentials/lookout.service/mqtt-password")
        #expect(configuration.settings.snapshots == "/var/lib/$lookout")
    }

    @Test func aConfigurationSurvivesJSONAndTheFileFormat() throws {
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: [qr, face]
              rect-of-interest: [0, 0.1, 0.5, 0.5]
            events:
              events: changes
              face-leave: 2s
            recordings:
              record-keep: 10G
              record-max-age: 7d
            cameras:
              door:
                input: \(clip)
                mqtt-name: front
                pixel-format: yuyv
            """, file: "lookout.yml")
        let json = try JSONEncoder().encode(configuration)
        let decoded = try JSONDecoder().decode(LookoutConfiguration.self, from: json)
        #expect(decoded == configuration)
        let yaml = ConfigurationWriter.yaml(ConfigurationWriter.value(of: configuration))
        let reread = try ConfigurationFile.parse(yaml, file: "printed.yml")
        #expect(reread == configuration)
        #expect(configuration.cameras.first?.settings.pixelFormat == "YUYV")
    }

    @Test func theMQTTPasswordIsRedactedWhenPrinted() throws {
        let configuration = try ConfigurationFile.parse("mqtt:\n  mqtt: mqtt://user:secret@broker.local/lookout\n", file: "lookout.yml")
        let printed = ConfigurationWriter.yaml(ConfigurationWriter.effectiveValue(of: configuration))
        #expect(printed.contains("mqtt://user:***@broker.local/lookout"))
        #expect(!printed.contains("secret"))
    }

    @Test func aFileThatIsNotAConfigurationIsRefused() throws {
        #expect(throws: ConfigurationProblems.self) { try ConfigurationFile.load(path: "/nonexistent/lookout.yml") }
        do {
            _ = try ConfigurationFile.load(path: Fixtures.path("events-codes.mjpeg"))
            Issue.record("an MJPEG file was read as a configuration")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.hasPrefix(Fixtures.path("events-codes.mjpeg") + ": not UTF-8 text") == true)
        }
    }
}
