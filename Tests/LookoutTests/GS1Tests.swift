import Testing
@testable import Lookout

/// GS1 data in codes (`gs1` of lines): element strings with FNC1 separators as GS, EAN/UPC digits
/// as GTINs, GS1 Digital Link URIs; anything that does not parse as valid GS1 data gives none.
@Suite("GS1 data")
struct GS1Tests {
    static let gs = "\u{1D}"

    static func elements(_ text: String) -> [String]? {
        GS1Data.elementString(Array(text.utf8)[...])?.elements.map { "(\($0.ai))\($0.value)" }
    }

    static func link(_ uri: String) -> GS1Data? { GS1Data.digitalLink(Array(uri.utf8)) }

    static func read(_ text: String, _ type: MetadataObjectType, _ aim: String) -> GS1Data? {
        GS1Data.read(payload: Array(text.utf8), type: type, symbologyIdentifier: aim)
    }

    // MARK: Element strings

    /// Predefined lengths (01, 17) need no separator; a variable field (10, 21) ends at GS or at
    /// the end; the human-readable form puts each AI in parentheses.
    @Test func fixedAndVariableFields() throws {
        let data = try #require(GS1Data.elementString(Array(("01095060001343521727123110ABC123" + Self.gs + "21XYZ").utf8)[...]))
        #expect(data.elements == [GS1Data.Element(ai: "01", value: "09506000134352"), GS1Data.Element(ai: "17", value: "271231"),
                                  GS1Data.Element(ai: "10", value: "ABC123"), GS1Data.Element(ai: "21", value: "XYZ")])
        #expect(data.humanReadable == "(01)09506000134352(17)271231(10)ABC123(21)XYZ")
        #expect(!data.isDigitalLink)
        #expect(data["10"] == "ABC123" && data["22"] == nil)
    }

    /// Without the separator, a variable field runs to the end and takes the next AI with it.
    @Test func theSeparatorEndsAVariableField() {
        #expect(Self.elements("10ABC" + Self.gs + "21XYZ") == ["(10)ABC", "(21)XYZ"])
        #expect(Self.elements("10ABC21XYZ") == ["(10)ABC21XYZ"])
        // Four-digit AIs: measures of predefined length, an amount of variable length.
        #expect(Self.elements("0109506000134352" + "3103000195" + "3922599" + Self.gs + "10L1") ==
                ["(01)09506000134352", "(3103)000195", "(3922)599", "(10)L1"])
        // A separator after a predefined length is superfluous but harmless; one at the end too.
        #expect(Self.elements("0109506000134352" + Self.gs + "10A" + Self.gs) == ["(01)09506000134352", "(10)A"])
        // Components: a GDTI's 13 digits with its check digit, then an optional serial.
        #expect(Self.elements("2534000001000050ABC") == ["(253)4000001000050ABC"])
        #expect(Self.elements("2534000001000051ABC") == nil)
    }

    /// A fixed length outside the predefined table (422: three digits) still needs its separator.
    @Test func aFixedFieldOutsideThePredefinedTableNeedsItsSeparator() {
        #expect(Self.elements("422250" + Self.gs + "10ABC") == ["(422)250", "(10)ABC"])
        #expect(Self.elements("42225010ABC") == nil)
    }

    @Test func aBadCheckDigitGivesNone() {
        #expect(Self.elements("0109506000134352") != nil)
        #expect(Self.elements("0109506000134353") == nil)
        #expect(Self.elements("00106141411234567897") == ["(00)106141411234567897"])
        #expect(Self.elements("00106141411234567898") == nil)
        #expect(Self.elements("4145391234567892") != nil)
        #expect(Self.elements("4145391234567893") == nil)
    }

    @Test func anUnknownAIGivesNone() {
        #expect(Self.elements("0109506000134352" + "23ABC") == nil)     // 23 alone is no AI (235 is)
        #expect(Self.elements("0109506000134352" + "3106000195") == nil) // measures place the point 0-5
        #expect(Self.elements("04123") == nil)
        #expect(Self.elements("hello") == nil)
        #expect(Self.elements("") == nil)
    }

    @Test func wrongLengthsAndCharactersGiveNone() {
        #expect(Self.elements("010950600013435") == nil)                          // GTIN one digit short
        #expect(Self.elements("10" + String(repeating: "A", count: 20)) != nil)
        #expect(Self.elements("10" + String(repeating: "A", count: 21)) == nil)   // batch: at most 20
        #expect(Self.elements("10" + Self.gs + "21X") == nil)                     // an empty field
        #expect(Self.elements("3012A") == nil)                                    // count: digits only
        #expect(Self.elements("10AB CD") == nil)                                  // no space in set 82
        #expect(Self.elements("10ABé") == nil)
        // The same AI twice: once when the values agree, invalid when they differ.
        #expect(Self.elements("10A" + Self.gs + "10A") == ["(10)A"])
        #expect(Self.elements("10A" + Self.gs + "10B") == nil)
    }

    /// Dates are YYMMDD with a real month and day; DD 00 (the month's end) where GS1 allows it.
    @Test func datesArePlausible() {
        #expect(Self.elements("17271231") == ["(17)271231"])
        #expect(Self.elements("17270200") == ["(17)270200"])
        #expect(Self.elements("17271301") == nil)
        #expect(Self.elements("17270230") == nil)
        #expect(Self.elements("17280229") == ["(17)280229"])
        #expect(Self.elements("17270229") == nil)
        #expect(Self.elements("7006270200") == nil)                   // first freeze date: a whole date
        #expect(Self.elements("70032712312359") == ["(7003)2712312359"])
        #expect(Self.elements("70032712312460") == nil)
    }

    // MARK: Which codes are GS1

    /// The symbology identifier decides: GS1 modes parse, the same digits in a plain symbol do not.
    @Test func onlyGS1SymbologiesCarryElementStrings() throws {
        let text = "0109506000134352" + "10ABC"
        for aim in ["]C1", "]e0", "]Q3", "]d2", "]z1"] {
            #expect(Self.read(text, .qr, aim)?.humanReadable == "(01)09506000134352(10)ABC", "\(aim)")
        }
        for aim in ["]Q1", "]C0", "]d1", "]z0", "]L2", "]Q5"] {
            #expect(Self.read(text, .qr, aim) == nil, "\(aim)")
        }
        // GS1 mode with data that is no element string: none, and the code is still a code.
        #expect(Self.read("https://id.gs1.org/01/09506000134352", .qr, "]Q3") == nil)
    }

    /// EAN/UPC digits are a GTIN: AI 01, zero-padded to 14 digits; UPC-E expanded; ISBN-10 as the
    /// 978 EAN-13 it is printed as.
    @Test func eanAndUPCAreGTINs() {
        func gtin(_ text: String, _ type: MetadataObjectType, _ aim: String = "]E0") -> String? {
            let data = Self.read(text, type, aim)
            #expect(data == nil || (data?.elements.count == 1 && data?.isDigitalLink == false))
            return data?["01"]
        }
        #expect(gtin("4006381333931", .ean13) == "04006381333931")
        #expect(gtin("9783161484100", .isbn13) == "09783161484100")
        #expect(gtin("036000291452", .upcA) == "00036000291452")
        #expect(gtin("96385074", .ean8, "]E4") == "00000096385074")
        #expect(gtin("01234565", .upcE) == "00012345000065")
        #expect(gtin("04210000526", .upcE) == nil)
        #expect(gtin("3161484100", .isbn10) == "09783161484100")
        #expect(gtin("4006381333932", .ean13) == nil)                // a wrong check digit
        #expect(gtin("4006381333931", .ean13, "]E3") == nil)         // with an add-on: not read
        #expect(GS1Data.expandUPCE(Array("04252614".utf8)).map { String(decoding: $0, as: UTF8.self) } == "042100005264")
    }

    // MARK: Digital Link

    @Test func digitalLinkWithPathAndQuery() throws {
        let data = try #require(Self.link("https://id.gs1.org/01/09506000134352/10/ABC123?17=271231"))
        #expect(data.isDigitalLink)
        #expect(data.elements.map(\.ai) == ["01", "10", "17"])
        #expect(data.humanReadable == "(01)09506000134352(10)ABC123(17)271231")
        // The same through the code's reading: a plain QR code (]Q1) holding the URI.
        #expect(Self.read("https://id.gs1.org/01/09506000134352/10/ABC123?17=271231", .qr, "]Q1") == data)
        #expect(Self.read("https://id.gs1.org/01/09506000134352", .code128, "]C0") == nil)
    }

    /// Any host and a path of the brand's own before the key; the key's qualifiers in order;
    /// query parameters that are not AIs left out; a trailing slash and a fragment ignored.
    @Test func anyDomainAndOtherPrimaryKeys() {
        #expect(Self.link("https://brand.example.com/shop/item/01/09506000134352/22/2A/10/L1/21/S%2F1?linkType=gs1:pip&3103=000195")?
            .humanReadable == "(01)09506000134352(22)2A(10)L1(21)S/1(3103)000195")
        #expect(Self.link("http://example.org/00/106141411234567897/")?.humanReadable == "(00)106141411234567897")
        #expect(Self.link("https://example.org/414/5391234567892/254/A1#top")?.humanReadable == "(414)5391234567892(254)A1")
        #expect(Self.link("https://example.org/8004/95012345ABC/7040/1ABC")?.humanReadable == "(8004)95012345ABC(7040)1ABC")
        #expect(Self.link("https://example.org/01/09506000134352/235/T1")?.humanReadable == "(01)09506000134352(235)T1")
    }

    /// Scheme and host in capitals, percent escapes in either case, decoded before the check.
    @Test func upperCaseAndPercentEncodedValues() {
        #expect(Self.link("HTTPS://ID.GS1.ORG/01/09506000134352/10/AB%2fC%2D1?17=271231")?.elements.map(\.value) ==
                ["09506000134352", "AB/C-1", "271231"])
        #expect(Self.link("https://id.gs1.org/%30%31/09506000134352") == nil)    // the AI itself is plain digits
        #expect(Self.link("https://id.gs1.org/01/%309506000134352")?["01"] == "09506000134352")
        #expect(Self.link("https://id.gs1.org/01/09506000134352/10/A%2") == nil) // a cut escape
        #expect(Self.link("https://id.gs1.org/01/09506000134352/10/A%20B") == nil) // a space is no GS1 character
    }

    @Test func otherURLsAreNotGS1() {
        for uri in [
            "https://example.com/",
            "https://example.com/01/hello",
            "https://example.com/blog/2024/01/15",
            "https://www.youtube.com/watch?v=01",
            "https://example.com/01/09506000134353",               // bad check digit
            "https://example.com/01/9506000134352",                // 13 digits
            "https://example.com/01/09506000134352/21/S1/10/L1",   // qualifiers out of order
            "https://example.com/01/09506000134352/17/271231",     // 17 is no qualifier of 01
            "https://example.com/00/106141411234567897/10/L1",     // an SSCC has none
            "https://example.com/01/09506000134352?99999=1",       // no such AI
            "https://example.com/01/09506000134352?17=271331",     // no 13th month
            "https://example.com/01/09506000134352?01=09506000134352", // a key in the query
            "https:///01/09506000134352",                          // no host
            "ftp://example.com/01/09506000134352",
            "mailto:01@example.com",
            "01095060001343521710",
        ] {
            #expect(Self.link(uri) == nil, "\(uri)")
        }
    }
}
