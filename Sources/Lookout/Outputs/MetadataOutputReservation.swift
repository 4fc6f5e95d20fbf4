extension MetadataOutput {
    /// What `reserveFrame` decided for one frame, for its `deliver` or `cancelReservation`.
    struct Reservation {
        /// The sampled lane is the frame's too (it was idle, or waited for).
        var withSampled = false
        /// The sampled lane was wanted but busy: its analyzers' objects are carried over.
        var sampledLaneBusy = false
        /// The frame is due for the sampled lane (it needs the frame's pixels).
        var sampledDue = false
        /// Some analyzer looks at the frame's pixels (else the frame is not decoded).
        var lookedAt = true
    }
}
