import ArgumentParser
import Lookout
import LookoutService

extension KeyboardLayout: ExpressibleByArgument {}
extension KeyboardSuffix: ExpressibleByArgument {}

/// Options of the keyboard output: each code typed on a virtual keyboard, as a barcode scanner in
/// keyboard-wedge mode types it.
struct KeyboardOptions: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp(
        "Type each code event on a virtual keyboard named \"Lookout scanner <camera>\" (through /dev/uinput; $LOOKOUT_UINPUT names another node), as a keyboard-wedge barcode scanner does: kiosk and point-of-sale software reads it as a scanner. Needs write access to /dev/uinput (exit 77 without)."))
    var keyboard = false

    @Option(name: .customLong("keyboard-layout"), help: ArgumentHelp(
        "The keyboard layout of the desktop or console receiving the keys (uk is XKB's gb). (default: \(ConfigurationKey.defaultText(of: "keyboard-layout")))", valueName: "layout"))
    var layout: KeyboardLayout?

    @Option(name: .customLong("keyboard-suffix"), help: ArgumentHelp("The key typed after each code. (default: \(ConfigurationKey.defaultText(of: "keyboard-suffix")))",
                                                                      valueName: "key"))
    var suffix: KeyboardSuffix?

    @Option(name: .customLong("keyboard-prefix"), help: ArgumentHelp("Typed before each code (1 to 64 bytes the layout types).", valueName: "text"))
    var prefix: String?

    @Flag(name: .customLong("keyboard-aim"), help: "Type the AIM symbology identifier (]Q1 QR, ]E0 EAN-13, ]C1 GS1-128, ...) before each code, after the prefix.")
    var aim = false

    static let delayRange = ConfigurationKey.argumentRange("keyboard-delay", DurationValue.self)
    @Option(name: .customLong("keyboard-delay"), parsing: .unconditional, help: ArgumentHelp(
        "Time between key events, each press and each release (\(KeyboardOptions.delayRange.text)). (default: \(ConfigurationKey.defaultText(of: "keyboard-delay")))", valueName: "time"),
            transform: { try KeyboardOptions.delayRange.parse($0) })
    var delay: DurationArgument?

    static let dedupeRange = ConfigurationKey.argumentRange("keyboard-dedupe", DurationValue.self)
    @Option(name: .customLong("keyboard-dedupe"), parsing: .unconditional, help: ArgumentHelp(
        "Same symbol timeout: a code is not typed again until it has been out of view this long, on top of --dedupe (\(KeyboardOptions.dedupeRange.text)). (default: \(ConfigurationKey.defaultText(of: "keyboard-dedupe")))",
        valueName: "time"), transform: { try KeyboardOptions.dedupeRange.parse($0) })
    var dedupe: DurationArgument?

    @Option(name: .customLong("keyboard-gs"), help: ArgumentHelp(
        "Typed instead of GS (0x1D, the field separator of GS1 data), which no layout types; without it a code holding GS is refused.",
        valueName: "text"))
    var groupSeparator: String?

    @Option(name: .customLong("keyboard-substitute"), help: ArgumentHelp(
        "Typed instead of any other character the layout cannot type; without it such a code is refused whole (never half typed), with a warning, counted.",
        valueName: "text"))
    var substitute: String?

    mutating func validate() throws {
        for (name, text, limit) in [("--keyboard-prefix", prefix, 64), ("--keyboard-gs", groupSeparator, 16), ("--keyboard-substitute", substitute, 16)] {
            if let text, text.isEmpty || text.utf8.count > limit || text.contains("\0") {
                throw ValidationError("\(name) takes 1 to \(limit) bytes of text.")
            }
        }
    }

    /// The options given, as configuration settings.
    var settings: ConfigurationSettings {
        var settings = ConfigurationSettings()
        if keyboard { settings.keyboard = true }
        settings.keyboardLayout = layout
        settings.keyboardSuffix = suffix
        settings.keyboardPrefix = prefix
        if aim { settings.keyboardAIM = true }
        settings.keyboardDelay = delay
        settings.keyboardDedupe = dedupe
        settings.keyboardGS = groupSeparator
        settings.keyboardSubstitute = substitute
        return settings
    }
}
