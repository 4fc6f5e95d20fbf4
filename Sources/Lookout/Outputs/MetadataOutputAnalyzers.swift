extension MetadataOutput {
    /// Every analyzer a metadata output runs, in order on each lane: the one place a detector is
    /// registered. Motion goes first on the frame lane (its verdict decides whether the others
    /// look again or restamp); codes follow; faces have the sampled lane. A type is available
    /// when its analyzer prepares (`availableMetadataObjectTypes`).
    static func makeAnalyzers(faceDetector: FaceDetectorConfiguration?, codeScanDensity: Int,
                              codeScanResolution: CodeScanResolution) -> [any FrameAnalyzer] {
        var analyzers: [any FrameAnalyzer] = [
            MotionAnalyzer(codeScanResolution: codeScanResolution),
            CodeAnalysis(density: codeScanDensity, resolution: codeScanResolution),
        ]
        if let faceDetector { analyzers.append(FaceAnalyzer(configuration: faceDetector)) }
        return analyzers
    }
}
