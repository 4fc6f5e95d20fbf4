import Testing
@testable import Lookout

/// What the keyboard output types for a code: prefix, AIM identifier, value, suffix; characters
/// the layout cannot type refuse the code whole unless a substitute is set.
@Suite("Keyboard typing")
struct KeyboardTypingTests {
    static func down(_ code: UInt16) -> KeyEvent { KeyEvent(code, pressed: true) }
    static func up(_ code: UInt16) -> KeyEvent { KeyEvent(code, pressed: false) }
    static func tap(_ code: UInt16) -> [KeyEvent] { [down(code), up(code)] }
    static func shifted(_ code: UInt16) -> [KeyEvent] { [down(KeyCode.leftShift)] + tap(code) + [up(KeyCode.leftShift)] }
    static func altGr(_ code: UInt16) -> [KeyEvent] { [down(KeyCode.rightAlt)] + tap(code) + [up(KeyCode.rightAlt)] }

    static func events(_ typing: KeyboardTyping, _ value: String, aim: String = "]Q1") -> [KeyEvent]? {
        try? typing.keyEvents(value: value, symbologyIdentifier: aim).get()
    }

    @Test func aValueIsTypedThenEnter() {
        // "aB1!" on us: a, Shift+b, 1, Shift+1, Enter.
        #expect(Self.events(KeyboardTyping(), "aB1!") == Self.tap(30) + Self.shifted(48) + Self.tap(2) + Self.shifted(2) + Self.tap(KeyCode.enter))
    }

    @Test func prefixAndAIMIdentifierComeFirstAndTheSuffixLast() {
        var typing = KeyboardTyping()
        typing.prefix = "#"
        typing.sendsSymbologyIdentifier = true
        typing.suffix = .tab
        #expect(typing.text(value: "x", symbologyIdentifier: "]E0") == "#]E0x")
        // # ] E 0 x Tab
        #expect(Self.events(typing, "x", aim: "]E0") == Self.shifted(4) + Self.tap(27) + Self.shifted(18) + Self.tap(11) + Self.tap(45) + Self.tap(KeyCode.tab))
        typing.suffix = .none
        #expect(Self.events(typing, "x", aim: "]E0")?.last == Self.up(45))
    }

    @Test func layoutSpecificCharactersUseTheirModifiersAndDeadKeysASpace() {
        var typing = KeyboardTyping()
        typing.layout = .de
        typing.suffix = .none
        #expect(Self.events(typing, "@^") == Self.altGr(16) + Self.tap(41) + Self.tap(KeyCode.space))
        typing.layout = .fr
        #expect(Self.events(typing, "a1€") == Self.tap(16) + Self.shifted(2) + Self.altGr(18))
    }

    @Test func aCodeTheLayoutCannotTypeIsRefusedWholeUnlessASubstituteIsSet() {
        var typing = KeyboardTyping()
        let gs1 = "0101234567890128\u{1D}10ABC"
        guard case .failure(let refusal) = typing.keyEvents(value: gs1, symbologyIdentifier: "]Q3") else {
            Issue.record("a code holding GS was typed on us")
            return
        }
        #expect(refusal.character == KeyboardTyping.groupSeparatorCharacter)
        #expect(refusal.words == "U+001D (GS) which the us layout cannot type")
        #expect(UntypableCharacter(character: "€", layout: .us).words == "U+20AC '€' which the us layout cannot type")
        typing.groupSeparator = "|"
        let events = Self.events(typing, gs1) ?? []
        #expect(events.count > 0 && events.filter { $0 == Self.down(43) }.count == 1) // | is Shift+\ on us
        // Another character needs the general substitute; GS keeps its own.
        #expect(Self.events(typing, "5€") == nil)
        typing.substitute = "?"
        #expect(Self.events(typing, "5€\u{1D}") == Self.tap(6) + Self.shifted(53) + Self.shifted(43) + Self.tap(KeyCode.enter))
    }
}
