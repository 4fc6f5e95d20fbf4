import Dispatch

/// Receives detected codes and faces on the delegate's queue (AVCaptureMetadataOutputObjectsDelegate).
public protocol MetadataOutputObjectsDelegate: AnyObject, Sendable {
    /// The objects found in one analysed frame, all with that frame's time and sequence. Called for
    /// every frame that holds objects, and once with an empty array when objects leave the view
    /// (or for every analysed frame when `deliversEmptyResults` is on).
    func metadataOutput(_ output: MetadataOutput, didOutput metadataObjects: [MetadataObject],
                        from connection: CaptureConnection)

    /// Called once for every analysed frame, after `didOutput` when that was called for the frame.
    /// Optional: for delegates whose state moves with time even when nothing is found.
    func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                        from connection: CaptureConnection)
}

extension MetadataOutputObjectsDelegate {
    public func metadataOutput(_ output: MetadataOutput, didFinishAnalysing frame: AnalysedFrame,
                               from connection: CaptureConnection) {}
}
