/// The image ZBar reads codes from.
public enum CodeScanResolution: String, Sendable, CaseIterable {
    /// The frame's own luma plane.
    case full
    /// A 2x2-averaged copy: a quarter of ZBar's work (the scan lines and QR's binarisation are
    /// per pixel), for cameras whose codes have bars and modules at least 2 pixels wide. Smaller
    /// codes are lost: at 720p the bench's codes read on every frame either way, at 480p its EAN-13
    /// (2.7 px per module) did not.
    case half
    /// Half for frames at least `automaticHalfWidth` pixels wide, full below: from 720p up a
    /// code whose modules ZBar can read at all spans 2 pixels or more; at 480p the bench's EAN-13
    /// does not.
    case automatic = "auto"

    public static let automaticHalfWidth = 1280

    /// The narrowest frame read at half size; nil when every frame is read whole.
    public var halfSizeMinimumFrameWidth: Int? {
        switch self {
        case .full: nil
        case .half: 0
        case .automatic: Self.automaticHalfWidth
        }
    }

    /// Whether a frame `frameWidth` pixels wide is read at half size.
    public func readsHalfSize(frameWidth: Int) -> Bool {
        halfSizeMinimumFrameWidth.map { frameWidth >= $0 } ?? false
    }
}

extension CodeScanResolution {
    /// The narrowest frame whose plane may come at half size when the frame is not one for
    /// faces, for a metadata output looking for `types`: any when no codes are looked for, else
    /// as the code scanner reads (nil: whole). PDF417, Aztec and DataMatrix want whole planes:
    /// zxing-cpp misses them at half size from about 5 pixels a module down.
    func halfPlaneMinimumWidth(for types: [MetadataObjectType]) -> Int? {
        if types.contains(where: \.isReadByZXingOnly) { return nil }
        return types.contains(where: \.isMachineReadableCode) ? halfSizeMinimumFrameWidth : 0
    }

    /// Whether frames not due for faces may come at half size.
    func acceptsHalfSizePlanes(for types: [MetadataObjectType], frameWidth: Int) -> Bool {
        halfPlaneMinimumWidth(for: types).map { frameWidth >= $0 } ?? false
    }
}
