/// A key as the user wrote it, for the words of a refusal: `--on-code` when the command line gave
/// it, `on-code` when a file did (or nobody did: its default is the file's key). A problem found
/// while the service is built names the place it was given, as the file's check does.
public struct KeySpelling: Sendable {
    /// The keys the command line gave, and those the file's global sections gave.
    private let commandLine: Set<String>
    private let file: Set<String>

    /// - Parameters:
    ///   - overrides: the settings the command line gave (none: every key a file's).
    ///   - file: the file's global settings, for keys given nowhere that follow another (`lead`).
    public init(commandLine overrides: ConfigurationSettings = ConfigurationSettings(), file: ConfigurationSettings = ConfigurationSettings()) {
        commandLine = Set(overrides.givenKeys)
        self.file = Set(file.givenKeys)
    }

    /// The key `name` as the user wrote it: `--KEY` (its option) or `KEY`. One given nowhere is
    /// named as `lead` was given (`http-allowed-host` beside `--http`), else as the file's key.
    public func callAsFunction(_ name: String, following lead: String? = nil) -> String {
        let onCommandLine = commandLine.contains(name)
            || (lead.map(commandLine.contains) == true && !file.contains(name))
        return onCommandLine ? "--" + (ConfigurationKey.named(name)?.option ?? name) : name
    }

    /// Whether the command line gave `name`.
    func isOnCommandLine(_ name: String) -> Bool { commandLine.contains(name) }

    /// A problem with key `name`, placed on the command line or in the configuration.
    func problem(_ name: String, _ message: String) -> ConfigurationProblems {
        ConfigurationProblems([ConfigurationProblem(file: isOnCommandLine(name) ? "the command line" : "the configuration",
                                                    position: nil, keyPath: self(name), message: message)])
    }
}
