/// An event's snapshot as a picture: the frame the event was decided on and what to outline on
/// it, encoded to JPEG once, by whichever sink asks first (the snapshot writer for its file, MQTT
/// for its `snapshot` topic): every sink shows the same bytes, and none hands them to another.
/// Made by the pipeline's snapshot stage (`SnapshotNaming.snapshot`).
public final class SnapshotPicture: Sendable {
    /// The JPEG quality snapshots are encoded at.
    public static let quality = 90

    public let picture: FramePicture
    public let overlays: [PictureRenderer.Overlay]
    /// The first asker's result, failure included: no sink encodes the picture again.
    private let encoded = Locked<Result<[UInt8], MediaError>?>(nil)

    public init(picture: FramePicture, overlays: [PictureRenderer.Overlay]) {
        self.picture = picture
        self.overlays = overlays
    }

    /// The JPEG: encoded now when no sink has asked before (a second asker meanwhile waits for
    /// it), the same bytes (or the same failure) afterwards.
    public func jpeg() throws(MediaError) -> [UInt8] {
        let result = encoded.withLock { cached in
            if let cached { return cached }
            let result = Result { () throws(MediaError) in try PictureRenderer(quality: Self.quality).jpeg(of: picture, overlays: overlays) }
            cached = result
            return result
        }
        return try result.get()
    }
}
