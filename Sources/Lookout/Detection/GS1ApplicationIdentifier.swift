/// What a GS1 Application Identifier's data field may hold (GS1 General Specifications, section
/// 3.2, the table of AIs): its components in order, each of a character set and a length, and
/// whether the field has a predefined length (then no FNC1 separator follows it in a symbol).
struct GS1ApplicationIdentifier {
    enum Characters {
        /// Digits.
        case numeric
        /// GS1 AI encodable character set 82 (`!"%&'()*+,-./0-9:;<=>?A-Z_a-z`).
        case set82
        /// GS1 AI encodable character set 39 (`#-/0-9A-Z`).
        case set39
        /// The URI- and file-safe base64 alphabet and `=` (character set 64).
        case set64
    }

    /// A content rule beyond the character set.
    enum Check {
        /// The last digit is the GS1 mod-10 check digit of the others.
        case checkDigit
        /// YYMMDD, where DD may be 00 (the month's end is meant).
        case dateOrMonth
        /// YYMMDD, a whole date.
        case date
        /// YYMMDDHH.
        case dateHour
        /// HHMM.
        case hourMinute
        /// MM or MMSS.
        case minuteSecond
        /// The digit 0.
        case zero
        /// 0 or 1.
        case yesNo
        /// `-`.
        case hyphen
        /// NNTT: piece NN of TT, 0 < NN <= TT.
        case pieceOfTotal
        /// Digits not starting with 0 (unless the number is 0 alone).
        case noZeroPrefix
    }

    struct Component {
        var characters: Characters
        var minimum: Int
        var maximum: Int
        var optional = false
        var check: Check?
    }

    var components: [Component]
    /// The field's length is fixed by the AI's first two digits (00, 01, 02, 11-20, 31-36, 41):
    /// no separator follows it.
    var predefinedLength: Bool

    var minimumLength: Int { components.reduce(0) { $0 + ($1.optional ? 0 : $1.minimum) } }
    var maximumLength: Int { components.reduce(0) { $0 + $1.maximum } }

    /// Whether `value` is a valid data field for this AI: split into its components (fixed lengths
    /// first, a variable one taking the rest), each in its character set and passing its check.
    func accepts(_ value: ArraySlice<UInt8>) -> Bool {
        guard (minimumLength...maximumLength).contains(value.count) else { return false }
        var rest = value
        for (index, component) in components.enumerated() {
            if rest.isEmpty, component.optional { return true }
            let laterMinimum = components[(index + 1)...].reduce(0) { $0 + ($1.optional ? 0 : $1.minimum) }
            let length = component.minimum == component.maximum ? component.minimum : min(component.maximum, rest.count - laterMinimum)
            guard length >= component.minimum, length <= rest.count else { return false }
            let part = rest.prefix(length)
            rest = rest.dropFirst(length)
            guard part.allSatisfy({ Self.isMember($0, of: component.characters) }) else { return false }
            if let check = component.check, !Self.passes(Array(part), check) { return false }
        }
        return rest.isEmpty
    }

    static func isMember(_ byte: UInt8, of characters: Characters) -> Bool {
        let isDigit = (0x30...0x39).contains(byte), isUpper = (0x41...0x5A).contains(byte), isLower = (0x61...0x7A).contains(byte)
        switch characters {
        case .numeric: return isDigit
        case .set82: return isDigit || isUpper || isLower || Array("!\"%&'()*+,-./:;<=>?_".utf8).contains(byte)
        case .set39: return isDigit || isUpper || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/")
        case .set64: return isDigit || isUpper || isLower || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
        }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int {
        digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    static func passes(_ digits: [UInt8], _ check: Check) -> Bool {
        switch check {
        case .checkDigit: return hasValidCheckDigit(digits)
        case .dateOrMonth: return isDate(digits, dayMayBeZero: true)
        case .date: return isDate(digits, dayMayBeZero: false)
        case .dateHour: return digits.count == 8 && isDate(Array(digits.prefix(6)), dayMayBeZero: false) && number(digits[6...]) < 24
        case .hourMinute: return digits.count == 4 && number(digits[0..<2]) < 24 && number(digits[2...]) < 60
        case .minuteSecond:
            return (digits.count == 2 || digits.count == 4) && number(digits[0..<2]) < 60 && (digits.count == 2 || number(digits[2...]) < 60)
        case .zero: return digits == [0x30]
        case .yesNo: return digits == [0x30] || digits == [0x31]
        case .hyphen: return digits == [UInt8(ascii: "-")]
        case .pieceOfTotal:
            let piece = number(digits[0..<2]), total = number(digits[2...])
            return piece > 0 && piece <= total
        case .noZeroPrefix: return digits.first != 0x30 || digits.count == 1
        }
    }

    /// GS1's mod-10 check digit: weights 3 and 1 alternating from the digit before the check digit.
    static func hasValidCheckDigit(_ digits: [UInt8]) -> Bool {
        guard digits.count >= 2, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        var sum = 0
        for (position, digit) in digits.dropLast().reversed().enumerated() {
            sum += Int(digit - 0x30) * (position % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10 == Int(digits.last! - 0x30)
    }

    /// YYMMDD: a month 01-12, a day that month has (any year ending in 00 taken as 2000, a leap
    /// year; GS1 reads the century by a sliding window around today), or 00 when allowed.
    private static func isDate(_ digits: [UInt8], dayMayBeZero: Bool) -> Bool {
        guard digits.count == 6 else { return false }
        let year = number(digits[0..<2]), month = number(digits[2..<4]), day = number(digits[4..<6])
        guard (1...12).contains(month) else { return false }
        if day == 0 { return dayMayBeZero }
        let days = [31, year % 4 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// The AI at the start of `bytes`, and its length in digits: AIs are prefix-free, so at most one
    /// of the first 2, 3 or 4 digits is one.
    static func find(at bytes: ArraySlice<UInt8>) -> (ai: String, spec: GS1ApplicationIdentifier)? {
        for length in 2...4 where bytes.count >= length {
            let candidate = bytes.prefix(length)
            guard candidate.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let ai = String(decoding: candidate, as: UTF8.self)
            if let spec = table[ai] { return (ai, spec) }
        }
        return nil
    }

    /// The AIs Lookout knows, from the GS1 General Specifications' table (release 24) in GS1's own
    /// notation: `N` digits, `X` set 82, `Y` set 39, `Z` set 64; `N6` six, `X..20` one to twenty;
    /// `[...]` an optional last component; after a comma, the check; `*` a predefined length.
    static let table: [String: GS1ApplicationIdentifier] = {
        var entries: [(String, String)] = [
            ("00", "* N18,cd"), ("01", "* N14,cd"), ("02", "* N14,cd"),
            ("10", "X..20"), ("11", "* N6,yymmd0"), ("12", "* N6,yymmd0"), ("13", "* N6,yymmd0"),
            ("15", "* N6,yymmd0"), ("16", "* N6,yymmd0"), ("17", "* N6,yymmd0"), ("20", "* N2"),
            ("21", "X..20"), ("22", "X..20"), ("235", "X..28"), ("240", "X..30"), ("241", "X..30"),
            ("242", "N..6"), ("243", "X..20"), ("250", "X..30"), ("251", "X..30"),
            ("253", "N13,cd [X..17]"), ("254", "X..20"), ("255", "N13,cd [N..12]"),
            ("30", "N..8"), ("37", "N..8"),
            ("400", "X..30"), ("401", "X..30"), ("402", "N17,cd"), ("403", "X..30"),
            ("420", "X..20"), ("421", "N3 X..9"), ("422", "N3"), ("423", "N..15"), ("424", "N3"),
            ("425", "N..15"), ("426", "N3"), ("427", "X..3"),
            ("4300", "X..35"), ("4301", "X..35"), ("4302", "X..70"), ("4303", "X..70"), ("4304", "X..70"),
            ("4305", "X..70"), ("4306", "X..70"), ("4307", "X2"), ("4308", "X..30"), ("4309", "N20"),
            ("4310", "X..35"), ("4311", "X..35"), ("4312", "X..70"), ("4313", "X..70"), ("4314", "X..70"),
            ("4315", "X..70"), ("4316", "X..70"), ("4317", "X2"), ("4318", "X..20"), ("4319", "X..30"),
            ("4320", "X..35"), ("4321", "N1,yesno"), ("4322", "N1,yesno"), ("4323", "N1,yesno"),
            ("4324", "N6,yymmd0 N4,hhmm"), ("4325", "N6,yymmd0 N4,hhmm"), ("4326", "N6,yymmdd"),
            ("4330", "N6 [X1,hyphen]"), ("4331", "N6 [X1,hyphen]"), ("4332", "N6 [X1,hyphen]"), ("4333", "N6 [X1,hyphen]"),
            ("7001", "N13"), ("7002", "X..30"), ("7003", "N6,yymmdd N4,hhmm"), ("7004", "N..4"), ("7005", "X..12"),
            ("7006", "N6,yymmdd"), ("7007", "N6,yymmdd [N6,yymmdd]"), ("7008", "X..3"), ("7009", "X..10"),
            ("7010", "X..2"), ("7011", "N6,yymmdd [N4,hhmm]"), ("7020", "X..20"), ("7021", "X..20"),
            ("7022", "X..20"), ("7023", "X..30"), ("7040", "N1 X3"),
            ("710", "X..20"), ("711", "X..20"), ("712", "X..20"), ("713", "X..20"), ("714", "X..20"), ("715", "X..20"),
            ("7240", "X..20"), ("7241", "N2"), ("7242", "X..25"),
            ("8001", "N14"), ("8002", "X..20"), ("8003", "N1,zero N13,cd [X..16]"), ("8004", "X..30"), ("8005", "N6"),
            ("8006", "N14,cd N4,piece"), ("8007", "X..34"), ("8008", "N8,yymmddhh [N..4,mmss]"), ("8009", "X..50"),
            ("8010", "Y..30"), ("8011", "N..12,nozero"), ("8012", "X..20"), ("8013", "X..25"),
            ("8017", "N18,cd"), ("8018", "N18,cd"), ("8019", "N..10"), ("8020", "X..25"),
            ("8026", "N14,cd N4,piece"), ("8030", "Z..90"), ("8110", "X..70"), ("8111", "N4"), ("8112", "X..70"),
            ("8200", "X..70"), ("90", "X..30"),
        ]
        // Measures: the fourth digit places the decimal point (0-5).
        for prefix in ["310", "311", "312", "313", "314", "315", "316", "320", "321", "322", "323", "324", "325",
                       "326", "327", "328", "329", "330", "331", "332", "333", "334", "335", "336", "337", "340",
                       "341", "342", "343", "344", "345", "346", "347", "348", "349", "350", "351", "352", "353",
                       "354", "355", "356", "357", "360", "361", "362", "363", "364", "365", "366", "367", "368", "369"] {
            for point in 0...5 { entries.append((prefix + String(point), "* N6")) }
        }
        for digit in 0...9 {
            entries.append(("390\(digit)", "N..15"))     // amount payable, local currency
            entries.append(("391\(digit)", "N3 N..15"))  // amount payable with ISO 4217 currency
            entries.append(("392\(digit)", "N..15"))     // price, local currency
            entries.append(("393\(digit)", "N3 N..15"))  // price with ISO 4217 currency
            entries.append(("703\(digit)", "N3 X..27"))  // processor with ISO 3166 country
            entries.append(("723\(digit)", "X2 X..28"))  // certification reference
            if digit > 0 { entries.append(("9\(digit)", "X..90")) } // company internal
        }
        for point in 0...3 { entries.append(("394\(point)", "N4")) }
        for point in 0...5 { entries.append(("395\(point)", "N6")) }
        for location in 0...7 { entries.append(("41\(location)", "* N13,cd")) }
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.0, parse($0.1)) })
    }()

    private static func check(named name: Substring) -> Check {
        switch name {
        case "cd": .checkDigit
        case "yymmd0": .dateOrMonth
        case "yymmdd": .date
        case "yymmddhh": .dateHour
        case "hhmm": .hourMinute
        case "mmss": .minuteSecond
        case "zero": .zero
        case "yesno": .yesNo
        case "hyphen": .hyphen
        case "piece": .pieceOfTotal
        case "nozero": .noZeroPrefix
        default: preconditionFailure("no check named \(name)")
        }
    }

    /// One entry of `table` in its notation.
    private static func parse(_ notation: String) -> GS1ApplicationIdentifier {
        var words = notation.split(separator: " ").map(String.init)
        let predefined = words.first == "*"
        if predefined { words.removeFirst() }
        let components = words.map { word -> Component in
            var text = Substring(word)
            let optional = text.hasPrefix("[")
            if optional { text = text.dropFirst().dropLast() }
            let parts = text.split(separator: ",")
            let characters: Characters = switch parts[0].first {
            case "N": .numeric
            case "X": .set82
            case "Y": .set39
            default: .set64
            }
            let length = parts[0].dropFirst()
            let variable = length.hasPrefix("..")
            let count = Int(variable ? length.dropFirst(2) : length)!
            let check = parts.count < 2 ? nil : Self.check(named: parts[1])
            return Component(characters: characters, minimum: variable ? 1 : count, maximum: count, optional: optional, check: check)
        }
        return GS1ApplicationIdentifier(components: components, predefinedLength: predefined)
    }
}
