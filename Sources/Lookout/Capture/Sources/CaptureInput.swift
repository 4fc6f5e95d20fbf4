/// A source of frames for a capture session (AVCaptureInput). Use a concrete input:
/// `AssetReaderInput` for recorded video; camera inputs join it with V4L2 capture.
// @unchecked: non-final (camera, file, ffmpeg inputs); its source belongs to the session's capture thread.
public class CaptureInput: @unchecked Sendable {
    let source: FrameSource

    init(source: FrameSource) {
        self.source = source
    }

    /// Name of the source as it appears in output lines.
    public var sourceName: String { source.sourceName }

    /// True when frames arrive in real time (a camera, a paced recording): frames the outputs
    /// cannot take are dropped rather than waited for.
    public var isRealTime: Bool { source.isRealTime }
}

extension CaptureInput {
    /// The format the input delivers now, for the inputs that know it.
    var knownFormat: VideoFormatDescription? {
        if let input = self as? AssetReaderInput { return input.formatDescription }
        if let input = self as? CaptureDeviceInput { return input.formatDescription }
        if let input = self as? FFmpegInput { return input.formatDescription }
        return nil
    }
}
