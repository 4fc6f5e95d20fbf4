import CZBar

/// What a metadata object is (AVMetadataObject.ObjectType). The raw value is the `kind` field of
/// output lines and the name `--types` takes.
public struct MetadataObjectType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let qr = MetadataObjectType(rawValue: "qr")
    public static let ean13 = MetadataObjectType(rawValue: "ean13")
    public static let ean8 = MetadataObjectType(rawValue: "ean8")
    public static let upcA = MetadataObjectType(rawValue: "upca")
    public static let upcE = MetadataObjectType(rawValue: "upce")
    public static let isbn10 = MetadataObjectType(rawValue: "isbn10")
    public static let isbn13 = MetadataObjectType(rawValue: "isbn13")
    public static let interleaved2of5 = MetadataObjectType(rawValue: "i25")
    public static let dataBar = MetadataObjectType(rawValue: "databar")
    public static let dataBarExpanded = MetadataObjectType(rawValue: "databar-exp")
    public static let codabar = MetadataObjectType(rawValue: "codabar")
    public static let code39 = MetadataObjectType(rawValue: "code39")
    public static let code93 = MetadataObjectType(rawValue: "code93")
    public static let code128 = MetadataObjectType(rawValue: "code128")
    /// Stacked and matrix codes ZBar does not read: zxing-cpp reads them (boarding passes,
    /// tickets, GS1 labels).
    public static let pdf417 = MetadataObjectType(rawValue: "pdf417")
    public static let aztec = MetadataObjectType(rawValue: "aztec")
    public static let dataMatrix = MetadataObjectType(rawValue: "datamatrix")
    public static let face = MetadataObjectType(rawValue: "face")

    /// Every machine-readable code type Lookout reads, in a stable order.
    public static let allCodeTypes: [MetadataObjectType] = [
        .qr, .ean13, .ean8, .upcA, .upcE, .isbn10, .isbn13, .interleaved2of5, .dataBar, .dataBarExpanded,
        .codabar, .code39, .code93, .code128,
    ] + zxingOnlyTypes

    /// The code types only zxing-cpp reads, on every analysed frame they are asked for.
    public static let zxingOnlyTypes: [MetadataObjectType] = [.pdf417, .aztec, .dataMatrix]

    /// What Lookout looks for unless told otherwise.
    public static let defaultTypes: [MetadataObjectType] = [.qr, .ean13, .face]

    public var isMachineReadableCode: Bool { zbarSymbolType != nil || isReadByZXingOnly }

    /// PDF417, Aztec or DataMatrix: read by zxing-cpp, not ZBar.
    public var isReadByZXingOnly: Bool { Self.zxingOnlyTypes.contains(self) }

    var zbarSymbolType: zbar_symbol_type_t? {
        switch self {
        case .qr: return ZBAR_QRCODE
        case .ean13: return ZBAR_EAN13
        case .ean8: return ZBAR_EAN8
        case .upcA: return ZBAR_UPCA
        case .upcE: return ZBAR_UPCE
        case .isbn10: return ZBAR_ISBN10
        case .isbn13: return ZBAR_ISBN13
        case .interleaved2of5: return ZBAR_I25
        case .dataBar: return ZBAR_DATABAR
        case .dataBarExpanded: return ZBAR_DATABAR_EXP
        case .codabar: return ZBAR_CODABAR
        case .code39: return ZBAR_CODE39
        case .code93: return ZBAR_CODE93
        case .code128: return ZBAR_CODE128
        default: return nil
        }
    }

    init?(zbarSymbolType: zbar_symbol_type_t) {
        guard let match = Self.allCodeTypes.first(where: { $0.zbarSymbolType == zbarSymbolType }) else { return nil }
        self = match
    }

    /// The name zbarcam prints before the colon ("QR-Code", "EAN-13", ...); for the kinds ZBar
    /// does not read, zxing-cpp's name ("PDF417", "Aztec", "DataMatrix"); "Face" for faces.
    public var zbarName: String {
        switch self {
        case .pdf417: return "PDF417"
        case .aztec: return "Aztec"
        case .dataMatrix: return "DataMatrix"
        default: break
        }
        guard let symbol = zbarSymbolType else { return "Face" }
        return String(cString: zbar_get_symbol_name(symbol))
    }

    public static func < (lhs: MetadataObjectType, rhs: MetadataObjectType) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
