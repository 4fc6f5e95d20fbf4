/// An event's snapshot as a picture: the frame the event was decided on and what to outline on
/// it, encoded to JPEG once, by whichever sink asks first (the snapshot writer for its file, MQTT
/// for its `snapshot` topic): every sink shows the same bytes, and none hands them to another.
/// Made by the pipeline's snapshot stage (`SnapshotNaming.snapshotPicture`).
public final class SnapshotPicture: Sendable {
    /// The JPEG quality snapshots are encoded at.
    public static let quality = 90

    public let picture: FramePicture
    public let overlays: [PictureRenderer.Overlay]
    private let encoded = Locked<[UInt8]?>(nil)

    public init(picture: FramePicture, overlays: [PictureRenderer.Overlay]) {
        self.picture = picture
        self.overlays = overlays
    }

    /// The JPEG: encoded now when no sink has asked before (a second asker meanwhile waits for
    /// it), the same bytes afterwards.
    public func jpeg() throws(MediaError) -> [UInt8] {
        try encoded.withLock { (cached: inout [UInt8]?) throws(MediaError) -> [UInt8] in
            if let cached { return cached }
            let jpeg = try PictureRenderer(quality: Self.quality).jpeg(of: picture, overlays: overlays)
            cached = jpeg
            return jpeg
        }
    }
}
