import Testing
@testable import Lookout

/// The layouts' tables: what each types, on which keys, with which modifiers (key codes from
/// linux/input-event-codes.h; what XKB makes of them is checked in the qemu guest).
@Suite("Keyboard layouts")
struct KeyboardLayoutTests {
    static let printableASCII = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }

    @Test(arguments: KeyboardLayout.allCases)
    func everyLayoutTypesEveryPrintableASCIICharacter(layout: KeyboardLayout) {
        let missing = Self.printableASCII.filter { layout.chord(for: $0) == nil }
        #expect(missing.isEmpty, "\(layout) cannot type \(String(missing))")
    }

    @Test(arguments: KeyboardLayout.allCases)
    func noTwoCharactersShareAChordAndEveryKeyIsDeclared(layout: KeyboardLayout) {
        let characters = Self.printableASCII + Array("£€§°²äöüÄÖÜßéèçàùµ¬")
        var seen: [KeyChord: Character] = [:]
        for character in characters {
            guard let chord = layout.chord(for: character) else { continue }
            #expect(seen[chord] == nil, "\(layout): '\(character)' and '\(seen[chord] ?? " ")' on the same chord \(chord)")
            seen[chord] = character
            #expect(layout.keyCodes.contains(chord.keyCode))
        }
        #expect(layout.keyCodes.isSuperset(of: [KeyCode.leftShift, KeyCode.rightAlt, KeyCode.enter, KeyCode.tab, KeyCode.space]))
    }

    @Test func theKeysOfEachLayoutAreItsOwn() {
        // us: @ on Shift+2; uk: @ on Shift+' and " on Shift+2, # on its own key by Enter.
        #expect(KeyboardLayout.us.chord(for: "@") == KeyChord(keyCode: 3, shift: true))
        #expect(KeyboardLayout.uk.chord(for: "@") == KeyChord(keyCode: 40, shift: true))
        #expect(KeyboardLayout.uk.chord(for: "\"") == KeyChord(keyCode: 3, shift: true))
        #expect(KeyboardLayout.uk.chord(for: "#") == KeyChord(keyCode: 43))
        #expect(KeyboardLayout.uk.chord(for: "\\") == KeyChord(keyCode: 86))
        #expect(KeyboardLayout.uk.chord(for: "£") == KeyChord(keyCode: 4, shift: true))
        // de: QWERTZ, AltGr for @ { [ ] } \ | ~ €, ^ and ` on dead keys.
        #expect(KeyboardLayout.de.chord(for: "z") == KeyChord(keyCode: 21))
        #expect(KeyboardLayout.de.chord(for: "Y") == KeyChord(keyCode: 44, shift: true))
        #expect(KeyboardLayout.de.chord(for: "@") == KeyChord(keyCode: 16, altGr: true))
        #expect(KeyboardLayout.de.chord(for: "{") == KeyChord(keyCode: 8, altGr: true))
        #expect(KeyboardLayout.de.chord(for: "\\") == KeyChord(keyCode: 12, altGr: true))
        #expect(KeyboardLayout.de.chord(for: "€") == KeyChord(keyCode: 18, altGr: true))
        #expect(KeyboardLayout.de.chord(for: "^") == KeyChord(keyCode: 41, isDead: true))
        #expect(KeyboardLayout.de.chord(for: "`") == KeyChord(keyCode: 13, shift: true, isDead: true))
        #expect(KeyboardLayout.de.chord(for: "ß") == KeyChord(keyCode: 12))
        // fr: AZERTY, digits on Shift, AltGr for @ # { [ | ` \ ^ ] } ~ €.
        #expect(KeyboardLayout.fr.chord(for: "a") == KeyChord(keyCode: 16))
        #expect(KeyboardLayout.fr.chord(for: "m") == KeyChord(keyCode: 39))
        #expect(KeyboardLayout.fr.chord(for: "1") == KeyChord(keyCode: 2, shift: true))
        #expect(KeyboardLayout.fr.chord(for: "é") == KeyChord(keyCode: 3))
        #expect(KeyboardLayout.fr.chord(for: "@") == KeyChord(keyCode: 11, altGr: true))
        #expect(KeyboardLayout.fr.chord(for: "^") == KeyChord(keyCode: 10, altGr: true))
        #expect(KeyboardLayout.fr.chord(for: ".") == KeyChord(keyCode: 51, shift: true))
    }

    @Test func whatALayoutCannotTypeIsNil() {
        #expect(KeyboardLayout.us.chord(for: "€") == nil)
        #expect(KeyboardLayout.us.chord(for: "£") == nil)
        #expect(KeyboardLayout.uk.chord(for: "ä") == nil)
        #expect(KeyboardLayout.fr.chord(for: "ß") == nil)
        for layout in KeyboardLayout.allCases {
            #expect(layout.chord(for: KeyboardTyping.groupSeparatorCharacter) == nil)
            #expect(layout.chord(for: "\n") == nil)
            #expect(layout.chord(for: "\t") == nil)
        }
        // A decomposed é is the same character as the composed one.
        #expect(KeyboardLayout.fr.chord(for: "e\u{301}") == KeyboardLayout.fr.chord(for: "é"))
    }

    @Test func theDeviceNameFitsWhatUInputKeeps() {
        #expect(KeyboardEventSink.Settings.deviceName(camera: "door") == "Lookout scanner door")
        let long = KeyboardEventSink.Settings.deviceName(camera: String(repeating: "a", count: 64))
        #expect(UInputDevice.fitted(long).utf8.count == 79)
        #expect(UInputDevice.fitted(String(repeating: "é", count: 50)).utf8.count == 78)
    }
}
