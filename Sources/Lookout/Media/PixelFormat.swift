/// The layout of a frame as it arrives from an input, before Lookout turns it into a luma plane.
///
/// Raw values are V4L2/Y4M-style fourcc names, as `v4l2-ctl --list-formats` prints them.
public enum PixelFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Motion JPEG: each frame a complete (possibly Huffman-table-less) JPEG image.
    case mjpeg = "MJPG"
    /// Packed 4:2:2, Y0 U Y1 V.
    case yuyv = "YUYV"
    /// Packed 4:2:2, U Y0 V Y1.
    case uyvy = "UYVY"
    /// 8-bit luma only.
    case gray = "GREY"
    /// Planar 4:2:0 with interleaved chroma (Y plane, then CbCr).
    case nv12 = "NV12"
    /// Planar 4:2:0 with interleaved chroma (Y plane, then CrCb).
    case nv21 = "NV21"
    /// Planar 4:2:0, three planes (Y, U, V): I420, Y4M's C420 family.
    case yuv420 = "YU12"
    /// Planar 4:2:2, three planes (Y4M C422).
    case yuv422p = "422P"
    /// Planar 4:4:4, three planes (Y4M C444).
    case yuv444p = "444P"

    public var description: String { rawValue }

    /// True when the first plane of the frame is the luma plane, so detectors can read it in place.
    public var hasLeadingLumaPlane: Bool {
        switch self {
        case .gray, .nv12, .nv21, .yuv420, .yuv422p, .yuv444p: return true
        case .mjpeg, .yuyv, .uyvy: return false
        }
    }
}
