/// Something found in a frame (AVMetadataObject). Coordinates are given twice: `bounds` normalized
/// to 0...1 with a top-left origin, as AVFoundation does, and `pixelBounds` in the frame's pixels.
// @unchecked: non-final (codes, faces); `zone` is set once on the detector queue before the object is reported, then never.
public class MetadataObject: @unchecked Sendable {
    public let type: MetadataObjectType
    /// Presentation time of the frame the object was found in.
    public let time: MediaTime
    /// Sequence number of that frame.
    public let frameSequence: UInt64
    /// Wall-clock time at which that frame was received.
    public let wallClockTime: WallClockTime
    /// Monotonic time at which that frame was received (MonotonicClock nanoseconds).
    public let hostTime: Int64
    public let bounds: Rect
    public let pixelBounds: Rect
    /// Size of the frame the coordinates refer to.
    public let imageWidth: Int
    public let imageHeight: Int
    /// The name of the first zone holding the object's centre (`MetadataOutput.regions`), or nil.
    /// Set by the output before the object is delivered, never after.
    public internal(set) var zone: String?

    init(type: MetadataObjectType, frame: SampleBuffer, pixelBounds: Rect) {
        self.type = type
        self.time = frame.presentationTime
        self.frameSequence = frame.sequence
        self.wallClockTime = frame.wallClockTime
        self.hostTime = frame.hostTime
        self.imageWidth = frame.formatDescription.width
        self.imageHeight = frame.formatDescription.height
        self.pixelBounds = pixelBounds
        self.bounds = pixelBounds.normalized(width: frame.formatDescription.width, height: frame.formatDescription.height)
    }
}

/// A barcode or QR code (AVMetadataMachineReadableCodeObject).
// @unchecked: restates its base class's: immutable once reported.
public final class MachineReadableCodeObject: MetadataObject, @unchecked Sendable {
    /// The payload exactly as encoded in the symbol. For QR codes with an ECI designator, ZBar has
    /// already converted the payload to UTF-8.
    public let payload: [UInt8]
    /// The payload as text (see `textEncoding` for how it was read).
    public let stringValue: String
    /// How `payload` was turned into `stringValue`.
    public let textEncoding: TextEncoding
    /// The library that read the code.
    public let decoder: CodeDecoder
    /// The symbol's corners in normalized coordinates, in the order ZBar reports them.
    public let corners: [Point]
    public let pixelCorners: [Point]
    /// The AIM symbology identifier (ISO/IEC 15424) of the symbol: `]Q1` QR, `]Q3` QR in GS1 mode
    /// (FNC1 in first position), `]E0` EAN-13/UPC, `]E4` EAN-8, `]C0` Code 128, `]C1` GS1-128,
    /// `]e0` DataBar, `]d1`/`]d2` DataMatrix plain/GS1, `]L2` PDF417, `]z0` Aztec... What a scanner
    /// set to transmit it sends before the data (`payload` never holds it). AVFoundation has no
    /// such property. zxing-cpp gives its own; for ZBar's reads it comes from the type and ZBar's
    /// modifier flags (GS1, AIM); otherwise from the type alone.
    public let symbologyIdentifier: String
    /// The data as GS1 Application Identifiers and values, when it is GS1 data: an element string
    /// (the symbology identifier says GS1), the GTIN of an EAN/UPC symbol, or a GS1 Digital Link
    /// URI in a QR code or DataMatrix. Nil otherwise, and when the data does not parse as valid
    /// GS1 data (an unknown AI, a wrong length, a bad check digit or date).
    public let gs1: GS1Data?

    /// - Parameter symbologyIdentifier: the decoder's AIM identifier; nil (or malformed) for the
    ///   type's plain one (`SymbologyIdentifier.plain`).
    init(type: MetadataObjectType, frame: SampleBuffer, payload: [UInt8], pixelCorners: [Point],
         decoder: CodeDecoder = .zbar, textEncoding forced: TextEncoding? = nil, symbologyIdentifier: String? = nil) {
        self.payload = payload
        self.decoder = decoder
        let identifier = symbologyIdentifier.flatMap { SymbologyIdentifier.isWellFormed($0) ? $0 : nil }
            ?? SymbologyIdentifier.plain(type)
        self.symbologyIdentifier = identifier
        self.gs1 = GS1Data.read(payload: payload, type: type, symbologyIdentifier: identifier)
        let decoded = CodePayloadDecoder.decode(payload, forced: forced)
        self.stringValue = decoded.text
        self.textEncoding = decoded.encoding
        self.pixelCorners = pixelCorners
        let width = frame.formatDescription.width, height = frame.formatDescription.height
        self.corners = pixelCorners.map { $0.normalized(width: width, height: height) }
        super.init(type: type, frame: frame, pixelBounds: Rect.enclosing(pixelCorners))
    }

    /// True when the payload is valid UTF-8 and `stringValue` holds it exactly.
    public var payloadIsUTF8: Bool { textEncoding == .utf8 }
}

/// A face (AVMetadataFaceObject).
// @unchecked: restates its base class's: immutable once reported.
public final class FaceObject: MetadataObject, @unchecked Sendable {
    /// Identifies this face while it stays in view. A face that enters gets a new ID, never one
    /// used before in the process's life.
    public let faceID: Int

    init(frame: SampleBuffer, pixelBounds: Rect, faceID: Int) {
        self.faceID = faceID
        super.init(type: .face, frame: frame, pixelBounds: pixelBounds)
    }
}
