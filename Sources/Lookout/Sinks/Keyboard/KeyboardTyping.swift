/// What the keyboard output types for a code, as a barcode scanner in keyboard-wedge mode does:
/// the prefix, the AIM symbology identifier when asked for, the code's value, then the suffix key.
public struct KeyboardTyping: Sendable, Hashable {
    public var layout: KeyboardLayout = .us
    /// Typed before each code (a scanner's "prefix"), "" for none.
    public var prefix = ""
    /// Type the AIM symbology identifier (`]Q1`, `]E0`...) after the prefix, as scanners set to
    /// "transmit AIM code ID" do.
    public var sendsSymbologyIdentifier = false
    public var suffix: KeyboardSuffix = .enter
    /// Typed instead of GS (0x1D, the field separator of GS1 data), which no layout types; nil:
    /// a code holding GS is refused as any other character the layout cannot type.
    public var groupSeparator: String?
    /// Typed instead of any other character the layout cannot type; nil: such a code is refused.
    public var substitute: String?

    public init() {}

    /// GS, ASCII 29: GS1 symbologies separate variable-length fields with it.
    public static let groupSeparatorCharacter: Character = "\u{1D}"

    /// The text typed before the suffix.
    public func text(value: String, symbologyIdentifier: String) -> String {
        prefix + (sendsSymbologyIdentifier ? symbologyIdentifier : "") + value
    }

    /// The key events that type `value` (press and release, modifiers around), or the first
    /// character the layout cannot type: then nothing of the code is typed, never half of it.
    /// A character is typed by the layout, else by its substitute (GS by `groupSeparator`, any
    /// other by `substitute`), else the code is refused.
    public func keyEvents(value: String, symbologyIdentifier: String) -> Result<[KeyEvent], UntypableCharacter> {
        var events: [KeyEvent] = []
        let text = text(value: value, symbologyIdentifier: symbologyIdentifier)
        for character in text {
            if let chord = layout.chord(for: character) {
                events += Self.events(chord)
                continue
            }
            let replacement = character == Self.groupSeparatorCharacter ? groupSeparator : substitute
            guard let replacement, let chords = chords(replacement) else {
                return .failure(UntypableCharacter(character: character, layout: layout))
            }
            for chord in chords { events += Self.events(chord) }
        }
        if let key = suffix.keyCode { events += [KeyEvent(key, pressed: true), KeyEvent(key, pressed: false)] }
        return .success(events)
    }

    private func chords(_ text: String) -> [KeyChord]? {
        let chords = text.compactMap { layout.chord(for: $0) }
        return chords.count == text.count ? chords : nil
    }

    /// A chord's events: modifiers down, the key down and up, modifiers up; a dead key then
    /// Space, which makes the dead key's character.
    static func events(_ chord: KeyChord) -> [KeyEvent] {
        var events: [KeyEvent] = []
        if chord.shift { events.append(KeyEvent(KeyCode.leftShift, pressed: true)) }
        if chord.altGr { events.append(KeyEvent(KeyCode.rightAlt, pressed: true)) }
        events += [KeyEvent(chord.keyCode, pressed: true), KeyEvent(chord.keyCode, pressed: false)]
        if chord.altGr { events.append(KeyEvent(KeyCode.rightAlt, pressed: false)) }
        if chord.shift { events.append(KeyEvent(KeyCode.leftShift, pressed: false)) }
        if chord.isDead { events += [KeyEvent(KeyCode.space, pressed: true), KeyEvent(KeyCode.space, pressed: false)] }
        return events
    }
}

/// The key typed after each code.
public enum KeyboardSuffix: String, Sendable, CaseIterable {
    case enter, tab, none

    var keyCode: UInt16? {
        switch self {
        case .enter: return KeyCode.enter
        case .tab: return KeyCode.tab
        case .none: return nil
        }
    }
}

/// One key pressed or released.
public struct KeyEvent: Sendable, Hashable, CustomStringConvertible {
    public var code: UInt16
    public var pressed: Bool

    public init(_ code: UInt16, pressed: Bool) {
        self.code = code
        self.pressed = pressed
    }

    public var description: String { "\(code)\(pressed ? "↓" : "↑")" }
}

/// A character a layout cannot type.
public struct UntypableCharacter: Error, Sendable, Equatable {
    public var character: Character
    public var layout: KeyboardLayout

    public init(character: Character, layout: KeyboardLayout) {
        self.character = character
        self.layout = layout
    }

    /// "U+001D (GS) which the us layout cannot type".
    public var words: String {
        let scalars = character.unicodeScalars.map { scalar -> String in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        let shown = character == KeyboardTyping.groupSeparatorCharacter ? " (GS)"
            : character.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) ? " '\(character)'" : ""
        return scalars.joined(separator: " ") + shown + " which the \(layout.rawValue) layout cannot type"
    }
}
