import Lookout
import LookoutService
import Testing

/// The configuration keys as `lookout run` options, read and described from the key table alone.
@Suite struct ConfigurationOptionsTests {
    @Test func aValueIsReadByItsKeyAsTheFilesIs() throws {
        let settings = try ConfigurationOptions.settings(from: ["--buffers", "6", "--watchdog=1.5", "--hook-timeout", "2m", "--snapshot-keep", "12"])
        #expect(settings.buffers == 6)
        #expect(settings.watchdog == 1.5)
        #expect(settings.hookTimeout == DurationValue(seconds: 120))
        #expect(settings.snapshotKeep == 12)
        #expect(settings.givenKeys == ["buffers", "watchdog", "snapshot-keep", "hook-timeout"])
        // Given twice, the last value counts; a list key keeps every item, in order.
        #expect(try ConfigurationOptions.settings(from: ["--buffers", "3", "--buffers", "5"]).buffers == 5)
        #expect(try ConfigurationOptions.settings(from: ["--types", "qr", "--types", "face"]).types == [.qr, .face])
        #expect(try ConfigurationOptions.settings(from: []).givenKeys.isEmpty)
    }

    @Test func anEncodingsOtherNamesAreReadAsItsOwnByTheFileAndTheOptionAlike() throws {
        for (given, read) in [("latin1", "iso-8859-1"), ("SJIS", "shift_jis"), ("cp932", "shift_jis"), ("utf8", "utf-8"),
                              ("Shift_JIS", "shift_jis"), ("auto", "auto")] {
            let file = try ConfigurationFile.parse("detection:\n  charset: \(given)\n", file: "charset.yml")
            #expect(file.settings.charset == read, "\(given) in a file")
            #expect(try ConfigurationOptions.settings(from: ["--charset", given]).charset == read, "--charset \(given)")
        }
        #expect(throws: ConfigurationProblems.self) { try ConfigurationFile.parse("detection:\n  charset: klingon\n", file: "charset.yml") }
    }

    @Test func aTrueOrFalseKeyIsAFlagBothWays() throws {
        #expect(try ConfigurationOptions.settings(from: ["--exit-on-loss"]).exitOnLoss == true)
        #expect(try ConfigurationOptions.settings(from: ["--no-exit-on-loss"]).exitOnLoss == false)
        #expect(try ConfigurationOptions.settings(from: ["--exit-on-loss=off"]).exitOnLoss == false)
        // A file's `realtime: true` can be taken back for one run.
        #expect(try ConfigurationOptions.settings(from: ["--no-realtime"]).realtime == false)
        #expect(throws: ConfigurationOptions.Refusal.invalidValue("maybe", option: "--exit-on-loss/--no-exit-on-loss", reason: "allowed true or false")) {
            try ConfigurationOptions.settings(from: ["--exit-on-loss=maybe"])
        }
        // `--no-` belongs to flags only.
        #expect(throws: ConfigurationOptions.Refusal.unknownOption("--no-buffers")) { try ConfigurationOptions.settings(from: ["--no-buffers"]) }
    }

    @Test func whatNoKeyTakesIsRefusedInTheCommandLinesWords() throws {
        let cases: [([String], ConfigurationOptions.Refusal, String)] = [
            (["--bogus", "1"], .unknownOption("--bogus"), "Unknown option '--bogus'"),
            (["-x"], .unknownOption("-x"), "Unknown option '-x'"),
            (["stray"], .unexpectedArgument("stray"), "Unexpected argument 'stray'"),
            (["--buffers"], .missingValue(option: "--buffers <n>"), "Missing value for '--buffers <n>'"),
            // The next argument is the value, whatever it looks like.
            (["--hook-jobs", "-3"], .invalidValue("-3", option: "--hook-jobs <n>", reason: "allowed 1 to 64"),
             "The value '-3' is invalid for '--hook-jobs <n>': allowed 1 to 64"),
            (["--watchdog", "abc"], .invalidValue("abc", option: "--watchdog <seconds>", reason: "allowed 0.2 to 3600 seconds"),
             "The value 'abc' is invalid for '--watchdog <seconds>': allowed 0.2 to 3600 seconds"),
            // A camera's own key is no option; --mask, not --masks, gives `masks`.
            (["--mqtt-name", "door"], .unknownOption("--mqtt-name"), "Unknown option '--mqtt-name'"),
            (["--masks", "0,0 1,0 1,1"], .unknownOption("--masks"), "Unknown option '--masks'"),
        ]
        for (arguments, refusal, words) in cases {
            #expect(throws: refusal, "\(arguments)") { try ConfigurationOptions.settings(from: arguments) }
            #expect(refusal.description == words)
        }
    }

    @Test func aSectionsOptionWithoutItsLeadIsRefused() throws {
        let cases: [([String], String?)] = [
            (["--pre-roll", "3s"], "--pre-roll needs --record."),
            (["--record-on", "codes", "--record", "/tmp/clips"], nil),
            (["--snapshot-keep", "5"], "--snapshot-keep needs --snapshots."),
            (["--snapshots", "/tmp/s", "--snapshot-on", "code,presence"], nil),
            (["--keyboard-aim"], "--keyboard-aim needs --keyboard."),
            // Given as off, the lead is still given: the file may turn it on per camera.
            (["--no-keyboard", "--keyboard-layout", "de"], nil),
            (["--buffers", "6", "--presence-on", "3"], nil),
        ]
        for (arguments, refusal) in cases {
            #expect(ConfigurationOptions.keyWithoutItsSection(in: try ConfigurationOptions.settings(from: arguments)) == refusal, "\(arguments)")
        }
        #expect(try ConfigurationOptions.settings(from: ["--snapshot-on", "code,presence"]).snapshotOn == [.code, .presence])
    }

    @Test func theHelpIsLaidOutAsArgumentParsersOwn() throws {
        let buffers = try #require(ConfigurationKey.named("buffers"))
        #expect(ConfigurationOptions.helpLines(of: buffers) == ["  --buffers <n>           Driver buffers to stream with (2 to 32). (default: 4)"])
        let exitOnLoss = try #require(ConfigurationKey.named("exit-on-loss"))
        #expect(ConfigurationOptions.helpLines(of: exitOnLoss) == [
            "  --exit-on-loss/--no-exit-on-loss",
            "                          Exit with status 69 when the camera is lost, instead",
            "                          of reconnecting. (default: --no-exit-on-loss)",
        ])
        // Every key's lines: at most 80 columns but for a word longer than a line, continued from column 26.
        for key in ConfigurationKey.all where key.scope != .cameraOnly {
            let lines = ConfigurationOptions.helpLines(of: key)
            #expect(lines[0].hasPrefix("  --\(key.option)"))
            for line in lines where line.count > 80 { #expect(!line.dropFirst(26).contains(" "), "\(line)") }
            for line in lines.dropFirst() { #expect(line.hasPrefix(String(repeating: " ", count: 26)) && line.dropFirst(26).first != " ", "\(line)") }
        }
    }
}
