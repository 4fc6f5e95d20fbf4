/// AIM symbology identifiers (ISO/IEC 15424): `]`, a letter naming the symbology, and a modifier
/// character saying how its data is to be read (`]Q1` QR, `]Q3` QR in GS1 mode, `]E0` EAN-13 or
/// UPC, `]E4` EAN-8, `]C1` GS1-128, `]d2` GS1 DataMatrix...). A scanner set to transmit them sends
/// one before the data; Lookout gives it beside the data instead (`aim_id`).
enum SymbologyIdentifier {
    /// The identifier a symbol of `type` has when nothing else is known of it: no FNC1, no ECI, no
    /// check character verified where verifying it is optional (Code 39, Interleaved 2 of 5).
    static func plain(_ type: MetadataObjectType) -> String {
        switch type {
        case .qr: return "]Q1"
        case .ean13, .upcA, .upcE, .isbn10, .isbn13: return "]E0" // UPC and ISBN symbols are EAN-13's
        case .ean8: return "]E4"
        case .interleaved2of5: return "]I0"
        case .dataBar, .dataBarExpanded: return "]e0" // DataBar always carries GS1 element strings
        case .codabar: return "]F0"
        case .code39: return "]A0"
        case .code93: return "]G0"
        case .code128: return "]C0"
        case .pdf417: return "]L2"
        case .aztec: return "]z0"
        case .dataMatrix: return "]d1"
        default: return "]X0" // ISO/IEC 15424's "other symbology"
        }
    }

    /// The identifier of a symbol ZBar read, from its type and ZBar's modifier flags
    /// (`zbar_symbol_get_modifiers`): ZBar 0.23 flags GS1 (FNC1 in first position) on QR, Code 128
    /// and DataBar, and AIM (FNC1 in second position) on QR and Code 128. It does not say whether
    /// a QR code held an ECI designator (it converts the text by it): `]Q1`, as the bytes Lookout
    /// gives hold no ECI escape.
    static func zbar(_ type: MetadataObjectType, gs1: Bool, aim: Bool) -> String {
        switch type {
        case .qr where gs1: return "]Q3"
        case .qr where aim: return "]Q5"
        case .code128 where gs1: return "]C1"
        case .code128 where aim: return "]C2"
        default: return plain(type)
        }
    }

    /// Identifiers whose data is a GS1 element string: GS1-128, GS1 DataBar, GS1 QR, GS1
    /// DataMatrix, GS1 Aztec and GS1 DotCode (FNC1 in first position, with or without ECI).
    static let elementStrings: Set<String> = ["]C1", "]e0", "]Q3", "]Q4", "]d2", "]d5", "]z1", "]z4", "]J1"]

    /// Identifiers of EAN/UPC symbols without add-on, whose digits are a GTIN: `]E0` (EAN-13,
    /// UPC-A, UPC-E) and `]E4` (EAN-8).
    static let gtins: Set<String> = ["]E0", "]E4"]

    /// Whether `text` has the shape of an identifier: `]`, a letter, a modifier character (ISO/IEC
    /// 15424 uses digits and letters; zxing-cpp's are of that form).
    static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 3, bytes[0] == UInt8(ascii: "]") else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        return isLetter(bytes[1]) && (isLetter(bytes[2]) || (0x30...0x39).contains(bytes[2]))
    }
}
