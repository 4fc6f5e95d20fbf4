/// Something found in a frame (AVMetadataObject). Coordinates are given twice: `bounds` normalized
/// to 0...1 with a top-left origin, as AVFoundation does, and `pixelBounds` in the frame's pixels.
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

    init(type: MetadataObjectType, frame: SampleBuffer, payload: [UInt8], pixelCorners: [Point],
         decoder: CodeDecoder = .zbar, textEncoding forced: TextEncoding? = nil) {
        self.payload = payload
        self.decoder = decoder
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
public final class FaceObject: MetadataObject, @unchecked Sendable {
    /// Identifies this face while it stays in view. A face that enters gets a new ID, never one
    /// used before in the process's life.
    public let faceID: Int

    init(frame: SampleBuffer, pixelBounds: Rect, faceID: Int) {
        self.faceID = faceID
        super.init(type: .face, frame: frame, pixelBounds: pixelBounds)
    }
}
