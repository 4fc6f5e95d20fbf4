import Lookout

/// A camera's keyboard output (`keyboard` and the `keyboard-*` keys), made with the camera and
/// removed with it: a reload that changes a `keyboard-*` key restarts the camera, and with it
/// makes the keyboard again.
enum KeyboardSetup {
    /// The keyboard output's settings, nil when `keyboard` is off. A prefix or substitute the
    /// layout cannot type is a problem of the configuration (nothing could type it).
    static func settings(_ settings: ConfigurationSettings, spelled: KeySpelling) throws(ServiceError) -> KeyboardEventSink.Settings? {
        guard settings.keyboard == true else { return nil }
        var keyboard = KeyboardEventSink.Settings()
        keyboard.typing.layout = settings.resolved(\.keyboardLayout)
        keyboard.typing.suffix = settings.resolved(\.keyboardSuffix)
        keyboard.typing.prefix = settings.keyboardPrefix ?? ""
        keyboard.typing.sendsSymbologyIdentifier = settings.resolved(\.keyboardAIM)
        keyboard.typing.groupSeparator = settings.keyboardGS
        keyboard.typing.substitute = settings.keyboardSubstitute
        keyboard.keyDelay = settings.resolved(\.keyboardDelay).seconds
        keyboard.sameSymbolTimeout = settings.resolved(\.keyboardDedupe).seconds
        if let first = problems(settings).first {
            throw .configuration(spelled.problem(first.key, first.message))
        }
        return keyboard
    }

    /// The keys whose text the layout cannot type (prefix, GS substitute, substitute), with why:
    /// none of it could ever be typed. None when `keyboard` is off.
    static func problems(_ settings: ConfigurationSettings) -> [(key: String, message: String)] {
        guard settings.keyboard == true else { return [] }
        let layout = settings.resolved(\.keyboardLayout)
        return [("keyboard-prefix", settings.keyboardPrefix), ("keyboard-gs", settings.keyboardGS),
                ("keyboard-substitute", settings.keyboardSubstitute)].compactMap { key, text in
            guard let text, let character = text.first(where: { layout.chord(for: $0) == nil }) else { return nil }
            return (key, "'\(text.escapedForDisplay)' holds \(UntypableCharacter(character: character, layout: layout).words) (change it or keyboard-layout)")
        }
    }

    /// The sink typing `camera`'s codes on a new virtual keyboard (on the environment's uinput node), nil when off.
    static func makeSink(camera: String, settings: ConfigurationSettings, overrides: ConfigurationSettings,
                         environment: Service.Environment) throws(ServiceError) -> KeyboardEventSink? {
        guard let keyboard = try Self.settings(settings, spelled: KeySpelling(commandLine: overrides)) else { return nil }
        do throws(UInputError) {
            return try KeyboardEventSink.open(camera: camera, settings: keyboard, path: environment.uinputPath,
                                              diagnostics: environment.diagnostics)
        } catch {
            throw .keyboard(error)
        }
    }
}
