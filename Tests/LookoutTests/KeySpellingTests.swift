import Lookout
@testable import LookoutService
import Testing

/// A refusal made while the service is built names a key as the user wrote it.
@Suite struct KeySpellingTests {
    @Test func aKeyIsNamedAsItWasGiven() throws {
        var commandLine = ConfigurationSettings()
        commandLine.maxPixels = PixelCountValue(640 * 480)
        commandLine.http = "0.0.0.0:8080"
        var file = ConfigurationSettings()
        file.httpAllowedOrigins = ["https://kiosk.example"]
        let spelled = KeySpelling(commandLine: commandLine, file: file)
        #expect(spelled("max-pixels") == "--max-pixels")
        #expect(spelled("keyboard-layout") == "keyboard-layout", "given nowhere: the file's key")
        // Given nowhere, as the key it follows was given; given in the file, as the file's.
        #expect(spelled("http-allowed-host", following: "http") == "--http-allowed-host")
        #expect(spelled("http-allowed-origin", following: "http") == "http-allowed-origin")
        #expect(KeySpelling()("max-pixels") == "max-pixels")
        let problem = try #require(spelled.problem("http", "needs a token").problems.first)
        #expect(problem.description == "the command line: --http: needs a token")
        #expect(KeySpelling().problem("http", "needs a token").description == "the configuration: http: needs a token")
    }

    @Test func thePixelBudgetIsNamedByItsKeyAsGiven() {
        var settings = ConfigurationSettings()
        settings.maxPixels = PixelCountValue(4096)
        #expect(DetectionSetup.pixelBudget(settings.withDefaults).exceeded(width: 65, height: 64)
                == "over the pixel budget: 65x64 is more than the 4096 pixels max-pixels allows")
        #expect(DetectionSetup.pixelBudget(settings.withDefaults, settingName: KeySpelling(commandLine: settings)("max-pixels")).allowance
                == "the 4096 pixels --max-pixels allows")
    }
}
