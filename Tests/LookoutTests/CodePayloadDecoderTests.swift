import Testing
@testable import Lookout

@Suite("Code payload text")
struct CodePayloadDecoderTests {
    @Test func validUTF8IsUTF8() {
        #expect(CodePayloadDecoder.decode(Array("é✓".utf8)) == ("é✓", .utf8))
    }

    @Test func invalidUTF8IsLatin1() {
        let decoded = CodePayloadDecoder.decode([0x63, 0x61, 0x66, 0xE9])
        #expect(decoded.text == "café" && decoded.encoding == .isoLatin1)
    }

    @Test func kanjiPairsAreShiftJIS() {
        let decoded = CodePayloadDecoder.decode([0x8A, 0xBF, 0x8E, 0x9A])
        #expect(decoded.text == "漢字" && decoded.encoding == .shiftJIS)
    }

    @Test func latin1ThatIsNotKanjiModeStaysLatin1() {
        // E9 74 E9: a lead byte with nothing after it cannot be Shift-JIS.
        #expect(CodePayloadDecoder.decode([0xE9, 0x74, 0xE9]).encoding == .isoLatin1)
    }

    // The wrong texts of the held-out photographs: ECI-free Shift-JIS in byte segments.

    @Test func halfWidthKatakanaAreShiftJIS() {
        let decoded = CodePayloadDecoder.decode([0xB6, 0xC0, 0xB6, 0xC5, 0x20, 0xC3, 0xBD, 0xC4])
        #expect(decoded.text == "ｶﾀｶﾅ ﾃｽﾄ" && decoded.encoding == .shiftJIS)
    }

    @Test func twoKatakanaAloneAreShiftJIS() {
        // "ｻｸ": exactly two together, as ZXing decides.
        #expect(CodePayloadDecoder.decode([0xBB, 0xB8]).text == "ｻｸ")
    }

    @Test func backslashAndTildeStayASCIIInShiftJIS() {
        // C:\ﾃｽﾄ\漢字~1: 0x5C and 0x7E as encoders write them, not ¥ and ‾ (JIS X 0201 Roman).
        let bytes: [UInt8] = [0x43, 0x3A, 0x5C, 0xC3, 0xBD, 0xC4, 0x5C, 0x8A, 0xBF, 0x8E, 0x9A, 0x7E, 0x31]
        let decoded = CodePayloadDecoder.decode(bytes)
        #expect(decoded.text == "C:\\ﾃｽﾄ\\漢字~1" && decoded.encoding == .shiftJIS)
    }

    @Test func latin1WithARareSymbolStaysLatin1() {
        // "25°C", "£5", "Müller": one symbol in a longer text, or a lower-case letter Shift-JIS cannot hold.
        #expect(CodePayloadDecoder.decode([0x32, 0x35, 0xB0, 0x43, 0x20, 0x6F, 0x75, 0x74, 0x73, 0x69, 0x64, 0x65]).text == "25°C outside")
        #expect(CodePayloadDecoder.decode([0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72]).text == "Müller")
        #expect(CodePayloadDecoder.decode([0x63, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65]).text == "café crème")
    }

    @Test func aForcedEncodingWinsWhenTheBytesFitIt() {
        // Katakana bytes read as Latin-1 because the user said so; UTF-8 forced on bytes that are
        // not UTF-8 falls back to the guess.
        #expect(CodePayloadDecoder.decode([0xB1, 0xB2, 0xB3], forced: .isoLatin1) == ("±²³", .isoLatin1))
        #expect(CodePayloadDecoder.decode([0xB1, 0xB2, 0xB3], forced: .utf8) == ("ｱｲｳ", .shiftJIS))
        #expect(CodePayloadDecoder.decode([0xE9, 0x74, 0xE9], forced: .shiftJIS) == ("été", .isoLatin1))
    }
}
