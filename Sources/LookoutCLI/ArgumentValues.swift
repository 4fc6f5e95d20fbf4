import ArgumentParser
import LookoutService

// The values options take are the configuration file's (LookoutService): one parser and one
// range for `--pre-roll 5s` and `pre-roll: 5s`.
typealias DurationArgument = DurationValue
typealias ByteCountArgument = ByteCountValue
typealias AgeArgument = AgeValue
typealias PixelCountArgument = PixelCountValue

extension DurationValue: ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

extension ByteCountValue: ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

extension AgeValue: ExpressibleByArgument {}

extension PixelCountValue: ExpressibleByArgument {
    public var defaultValueDescription: String { pixels == 8192 * 8192 ? "8192x8192" : description }
}

extension ArgumentHelp {
    /// A declared option's help, from its configuration key alone: the key's summary, what it
    /// takes and its default (`ConfigurationOptions.help(of:)`), under the key's value name; so
    /// the option, the file's reference and the schema say one thing. An option whose type is an
    /// enumeration has ArgumentParser list its values (`listsValues`), and one that reads its own
    /// form (`--control name=value`, where the file holds a map; the summary says it) does not
    /// state the file's: neither states what the key allows.
    static func key(_ name: String, repeatable: Bool = false, listsValues: Bool = false, readsOwnForm: Bool = false) -> ArgumentHelp {
        guard let key = ConfigurationKey.named(name) else { preconditionFailure("configuration key '\(name)' is not in the table") }
        return ArgumentHelp(ConfigurationOptions.help(of: key, statingAllowed: !listsValues && !readsOwnForm) + (repeatable ? " Repeatable." : ""),
                            valueName: key.valueName)
    }
}

extension ConfigurationSettings {
    /// The settings a declared option's value gives, read by its key as the file's is (the same
    /// parser, range and words: `--types qr,nope` and `types: qr,nope` are one check). `value`
    /// is the option's text in the file's shape: a string, a list of one per `--mask`, a map of
    /// `--zone NAME=POLYGON`'s; `texts` are the arguments as given, quoted in a refusal.
    static func option(_ keyName: String, _ value: ConfigurationValue, given texts: [String]) throws -> ConfigurationSettings {
        guard let key = ConfigurationKey.named(keyName) else { preconditionFailure("configuration key '\(keyName)' is not in the table") }
        var settings = ConfigurationSettings()
        do throws(ConfigurationOptions.Refusal) {
            try ConfigurationOptions.read(value, given: texts, by: key, into: &settings)
        } catch {
            throw ValidationError(error.description)
        }
        return settings
    }
}
