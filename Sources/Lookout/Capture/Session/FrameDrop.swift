/// Why an output did not get a frame (AVFoundation's kCMSampleBufferDroppedFrameReason values,
/// plus the corrupt case cameras and files produce).
public enum DropReason: String, Sendable, CaseIterable, Hashable, Codable {
    /// The output was still busy with an earlier frame and discards late frames.
    case late
    /// Every buffer of the fixed pool was held downstream, so there was nowhere to put the frame.
    case outOfBuffers = "out_of_buffers"
    /// Frames were lost before Lookout saw them (a gap in the source's sequence numbers).
    case discontinuity
    /// The frame arrived damaged (truncated or undecodable JPEG, driver error flag, empty buffer).
    case corrupt
}

/// A report of one or more consecutive frames an output did not get, for the same reason.
///
/// Reports are coalesced while the delegate's queue is busy, so a stalled delegate costs a counter,
/// not a growing queue of notifications.
public struct FrameDrop: Sendable, Equatable {
    public var reason: DropReason
    /// Sequence number of the first frame this report covers.
    public var firstSequence: UInt64
    /// Presentation time of the first frame this report covers.
    public var presentationTime: MediaTime
    /// How many frames the report covers.
    public var count: Int
    /// For corrupt frames, what was wrong.
    public var detail: String?

    public init(reason: DropReason, firstSequence: UInt64, presentationTime: MediaTime, count: Int = 1,
                detail: String? = nil) {
        self.reason = reason
        self.firstSequence = firstSequence
        self.presentationTime = presentationTime
        self.count = count
        self.detail = detail
    }
}
