/// The image ZBar reads codes from.
public enum CodeScanResolution: String, Sendable, CaseIterable {
    /// The frame's own luma plane.
    case full
    /// A 2x2-averaged copy: a quarter of ZBar's work (the scan lines and QR's binarisation are
    /// per pixel), for cameras whose codes have bars and modules at least 2 pixels wide. Smaller
    /// codes are lost: at 720p the bench's codes read on every frame either way, at 480p its EAN-13
    /// (2.7 px per module) did not.
    case half
}
