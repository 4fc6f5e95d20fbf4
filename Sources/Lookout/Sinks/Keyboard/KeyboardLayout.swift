/// The keyboard layout the machine that receives the keys is set to: a virtual keyboard sends key
/// positions (evdev key codes), and the receiving desktop turns them into characters by its own
/// layout, so the codes' characters must be typed as positions of that layout. The tables are
/// those of xkeyboard-config (Debian 12's xkb-data 2.35: `us`, `gb`, `de`, `fr`, each in its
/// default variant); the guest test reads the typed keys back through libxkbcommon with the same
/// layout names, so a table that disagrees with XKB fails there.
///
/// Every layout types the 95 printable ASCII characters (space to `~`); each adds its own letters
/// and signs (`£ €` on uk, `ä ö ü ß § ° € ²³` on de, `é è ç à ù £ § µ € ²` on fr). A character
/// behind a dead key (the circumflex and the grave accent on de) is typed as the dead key then Space, which gives the
/// character itself.
public enum KeyboardLayout: String, Sendable, CaseIterable {
    case us, uk, de, fr

    /// How the layout types `character`, nil when it cannot.
    public func chord(for character: Character) -> KeyChord? { Self.tables[self]?[character] }

    /// Every key code the layout's characters use, modifiers, Space, Enter and Tab included: the
    /// keys the virtual keyboard declares.
    public var keyCodes: Set<UInt16> {
        var codes: Set<UInt16> = [KeyCode.leftShift, KeyCode.rightAlt, KeyCode.space, KeyCode.enter, KeyCode.tab]
        for chord in (Self.tables[self] ?? [:]).values { codes.insert(chord.keyCode) }
        return codes
    }

    /// The layout's name in XKB (`setxkbmap`, `localectl set-x11-keymap`).
    public var xkbName: String { self == .uk ? "gb" : rawValue }

    private static let tables: [KeyboardLayout: [Character: KeyChord]] = {
        var tables: [KeyboardLayout: [Character: KeyChord]] = [:]
        for layout in allCases { tables[layout] = table(layout.rows) }
        return tables
    }()

    /// One key: its code and the characters of its levels (plain, Shift, AltGr); "" for none, a
    /// leading `*` for a dead key (typed with a Space after it).
    private struct Row {
        var code: UInt16
        var levels: [String]
        init(_ code: UInt16, _ levels: String...) {
            self.code = code
            self.levels = levels
        }
    }

    private static func table(_ rows: [Row]) -> [Character: KeyChord] {
        var table: [Character: KeyChord] = [:]
        for row in rows {
            for (level, text) in row.levels.enumerated() where !text.isEmpty {
                let dead = text.hasPrefix("*") && text.count == 2
                guard let character = (dead ? text.dropFirst() : Substring(text)).first, table[character] == nil else { continue }
                table[character] = KeyChord(keyCode: row.code, shift: level == 1, altGr: level == 2, isDead: dead)
            }
        }
        table[" "] = KeyChord(keyCode: KeyCode.space)
        return table
    }

    /// Letter keys from their rows' first key codes (Q 16, A 30, Z 44 in US positions), with
    /// their capitals on Shift.
    private static func letters(_ top: String, _ middle: String, _ bottom: String) -> [Row] {
        var rows: [Row] = []
        for (first, letters) in [(UInt16(16), top), (30, middle), (44, bottom)] {
            for (offset, letter) in letters.enumerated() {
                rows.append(Row(first + UInt16(offset), String(letter), letter.uppercased()))
            }
        }
        return rows
    }

    private var rows: [Row] {
        switch self {
        case .us:
            return Self.letters("qwertyuiop", "asdfghjkl", "zxcvbnm") + [
                Row(2, "1", "!"), Row(3, "2", "@"), Row(4, "3", "#"), Row(5, "4", "$"), Row(6, "5", "%"), Row(7, "6", "^"),
                Row(8, "7", "&"), Row(9, "8", "*"), Row(10, "9", "("), Row(11, "0", ")"), Row(12, "-", "_"), Row(13, "=", "+"),
                Row(26, "[", "{"), Row(27, "]", "}"), Row(39, ";", ":"), Row(40, "'", "\""), Row(41, "`", "~"), Row(43, "\\", "|"),
                Row(51, ",", "<"), Row(52, ".", ">"), Row(53, "/", "?"),
            ]
        case .uk:
            return Self.letters("qwertyuiop", "asdfghjkl", "zxcvbnm") + [
                Row(2, "1", "!"), Row(3, "2", "\""), Row(4, "3", "£"), Row(5, "4", "$", "€"), Row(6, "5", "%"), Row(7, "6", "^"),
                Row(8, "7", "&"), Row(9, "8", "*"), Row(10, "9", "("), Row(11, "0", ")"), Row(12, "-", "_"), Row(13, "=", "+"),
                Row(26, "[", "{"), Row(27, "]", "}"), Row(39, ";", ":"), Row(40, "'", "@"), Row(41, "`", "¬"), Row(43, "#", "~"),
                Row(51, ",", "<"), Row(52, ".", ">"), Row(53, "/", "?"), Row(86, "\\", "|"),
            ]
        case .de:
            return Self.letters("qwertzuiopü", "asdfghjklöä", "yxcvbnm") + [
                Row(2, "1", "!", "¹"), Row(3, "2", "\"", "²"), Row(4, "3", "§", "³"), Row(5, "4", "$"), Row(6, "5", "%"),
                Row(7, "6", "&"), Row(8, "7", "/", "{"), Row(9, "8", "(", "["), Row(10, "9", ")", "]"), Row(11, "0", "=", "}"),
                Row(12, "ß", "?", "\\"), Row(13, "", "*`"), Row(16, "q", "Q", "@"), Row(18, "e", "E", "€"), Row(27, "+", "*", "~"),
                Row(41, "*^", "°"), Row(43, "#", "'"), Row(51, ",", ";"), Row(52, ".", ":"), Row(53, "-", "_"),
                Row(86, "<", ">", "|"),
            ]
        case .fr:
            return Self.letters("azertyuiop", "qsdfghjklm", "wxcvbn") + [
                Row(2, "&", "1"), Row(3, "é", "2", "~"), Row(4, "\"", "3", "#"), Row(5, "'", "4", "{"), Row(6, "(", "5", "["),
                Row(7, "-", "6", "|"), Row(8, "è", "7", "`"), Row(9, "_", "8", "\\"), Row(10, "ç", "9", "^"), Row(11, "à", "0", "@"),
                Row(12, ")", "°", "]"), Row(13, "=", "+", "}"), Row(18, "e", "E", "€"), Row(27, "$", "£"), Row(40, "ù", "%"),
                Row(41, "²"), Row(43, "*", "µ"), Row(50, ",", "?"), Row(51, ";", "."), Row(52, ":", "/"), Row(53, "!", "§"),
                Row(86, "<", ">"),
            ]
        }
    }
}

/// How one character is typed: a key, with Shift or AltGr held, and a Space after it when the key
/// is a dead key.
public struct KeyChord: Sendable, Hashable {
    public var keyCode: UInt16
    public var shift = false
    public var altGr = false
    public var isDead = false

    public init(keyCode: UInt16, shift: Bool = false, altGr: Bool = false, isDead: Bool = false) {
        self.keyCode = keyCode
        self.shift = shift
        self.altGr = altGr
        self.isDead = isDead
    }
}

/// The evdev key codes (linux/input-event-codes.h) Lookout types besides the layouts' own.
public enum KeyCode {
    public static let tab: UInt16 = 15
    public static let enter: UInt16 = 28
    public static let leftShift: UInt16 = 42
    public static let space: UInt16 = 57
    /// AltGr on layouts that have it (ISO_Level3_Shift).
    public static let rightAlt: UInt16 = 100
}
