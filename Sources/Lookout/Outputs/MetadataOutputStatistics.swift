extension MetadataOutput {
    /// Counters of the work done so far.
    public struct Statistics: Sendable, Equatable {
        /// Frames analysed for codes (every frame the output took).
        public var framesAnalysed = 0
        /// Frames analysed for faces.
        public var faceAnalyses = 0
        /// Frames due for faces that the face queue was too busy to take (real-time input).
        public var faceFramesLate = 0
        /// Frames that differed too little from the last analysed one to be analysed again
        /// (`unchangedFrameThreshold`); they were given that frame's results.
        public var framesUnchanged = 0
        public var objectsByType: [MetadataObjectType: Int] = [:]
        /// Objects found whose centre lay in a mask (`regions`): not reported, not in `objectsByType`.
        public var objectsMasked = 0
        public var drops = DropCounts()
        /// Frames whose codes only the second pass read (`codeSecondPassBudget`).
        public var secondPassReads = 0
        /// Images zxing-cpp read for PDF417, Aztec or DataMatrix (0 when none is asked for), and
        /// those its reader process died on or overran (each skipped; the reader is restarted).
        public var zxingLooks = 0
        public var zxingFailures = 0
        /// Time ZBar (and the second pass) took per frame, and the face detector per analysis.
        public var codeTimes = TimingHistogram()
        public var faceTimes = TimingHistogram()
        public var objectCount: Int { objectsByType.values.reduce(0, +) }
    }
}
