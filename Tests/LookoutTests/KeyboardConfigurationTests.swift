import Foundation
import Testing
@testable import Lookout
@testable import LookoutService

/// The keyboard output as a setting: its keys in a camera's section, what the file check refuses,
/// and a missing or unwritable /dev/uinput refused in one sentence with exit 77 (a node that
/// cannot be there stands in for it: no test ever types on the machine's own desktop).
@Suite("Keyboard configuration")
struct KeyboardConfigurationTests {
    static let missingNode = "/nonexistent-lookout-test/uinput"

    @Test func aCameraSectionTurnsTheKeyboardOnWithItsSettings() throws {
        let configuration = try ConfigurationFile.parse("""
            keyboard:
              keyboard-layout: de
              keyboard-dedupe: 1s
            cameras:
              door:
                input: \(Fixtures.path("sample.mjpeg"))
                keyboard: true
                keyboard-prefix: "#"
                keyboard-suffix: tab
                keyboard-aim: true
                keyboard-gs: "|"
            """, file: "test.yml")
        let settings = configuration.effectiveSettings(of: try #require(configuration.camera(named: "door")))
        let keyboard = try #require(try KeyboardSetup.settings(settings, spelled: KeySpelling()))
        #expect(keyboard.typing.layout == .de && keyboard.typing.suffix == .tab && keyboard.typing.prefix == "#")
        #expect(keyboard.typing.sendsSymbologyIdentifier && keyboard.typing.groupSeparator == "|" && keyboard.typing.substitute == nil)
        #expect(keyboard.sameSymbolTimeout == 1 && keyboard.keyDelay == 0.005)
        // Off unless asked for.
        #expect(try KeyboardSetup.settings(ConfigurationSettings().withDefaults, spelled: KeySpelling()) == nil)
    }

    @Test func aPrefixTheLayoutCannotTypeIsAProblemOfTheFile() {
        let text = """
            cameras:
              door:
                input: \(Fixtures.path("sample.mjpeg"))
                keyboard: true
                keyboard-prefix: "€"
                keyboard-layout: LAYOUT
            """
        #expect(throws: Never.self) { try ConfigurationFile.parse(text.replacing("LAYOUT", with: "de"), file: "test.yml") }
        do {
            _ = try ConfigurationFile.parse(text.replacing("LAYOUT", with: "us"), file: "test.yml")
            Issue.record("a prefix the us layout cannot type was taken")
        } catch {
            #expect(error.problems.map(\.description) == [
                "test.yml:5:5: cameras.door.keyboard-prefix: '€' holds U+20AC '€' which the us layout cannot type (change it or keyboard-layout)"])
        }
    }

    @Test func withoutUInputTheServiceIsRefusedInOneSentence() throws {
        var environment = Service.Environment()
        environment.uinputPath = Self.missingNode
        var settings = ConfigurationSettings()
        settings.keyboard = true
        let configuration = LookoutConfiguration(settings: settings, cameras: [CameraConfiguration(name: "door", input: Fixtures.path("sample.mjpeg"))])
        do {
            _ = try Service(configuration: configuration, environment: environment)
            Issue.record("a keyboard was made on \(Self.missingNode)")
        } catch {
            #expect(error.kind == .keyboardUnavailable)
            #expect(error.description.hasPrefix("cannot open \(Self.missingNode) (no such file or directory) for the keyboard output: load the uinput module"))
        }
    }

    @Test func lookoutExits77WithoutUInput() throws {
        let result = try lookout(["run", "--input", Fixtures.path("sample.mjpeg"), "--keyboard"], environment: ["LOOKOUT_UINPUT": Self.missingNode])
        #expect(result.status == 77)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("lookout: cannot open \(Self.missingNode) (no such file or directory)") == true, "\(result.stderr)")
    }
}
