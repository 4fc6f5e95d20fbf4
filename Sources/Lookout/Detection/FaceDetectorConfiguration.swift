/// Settings of the Haar-cascade face detector, named as OpenCV's detectMultiScale names them.
public struct FaceDetectorConfiguration: Sendable, Equatable {
    /// The cascade XML (OpenCV's haarcascade_frontalface_default.xml unless told otherwise).
    public var cascadePath: String
    /// A second cascade each face must also pass (OpenCV's haarcascade_frontalface_alt2.xml by
    /// default in the command line), searched for around each candidate; nil for none. Textures,
    /// checkerboards and animals that fool one cascade seldom fool both: on the development corpus
    /// it took person-free pictures with a face from 23 of 66 to 1, and lost no face at 1280 px
    /// (docs/accuracy.md).
    public var verificationCascadePath: String?
    /// Raw hits the verifier needs around a candidate; higher rejects more.
    public var verificationMinNeighbors: Int = 12
    /// A profile-face cascade (OpenCV's haarcascade_profileface.xml by default in the command
    /// line) that may confirm, in either orientation, a candidate the verifier refused: faces
    /// turned too far for a frontal cascade, or half hidden by a hand. nil for none.
    public var profileVerificationCascadePath: String?
    /// Raw hits the profile cascade needs around a candidate the verifier refused.
    public var profileVerificationMinNeighbors: Int = 7
    /// When above 0, the verifier also searches the whole image, and a face it finds where the
    /// first cascade found nothing is kept when the first cascade, searched around it, gives this
    /// many hits: faces either cascade alone misses. Costs a second full search (`scan` only by
    /// default; docs/accuracy.md).
    public var joinMinNeighbors = 0
    /// How much the search window grows between scales; smaller finds more, slower. > 1.
    public var scaleFactor: Double = 1.1
    /// How many overlapping raw detections a face needs; higher means fewer false faces.
    public var minNeighbors: Int = 3
    /// Smallest face searched for, in frame pixels (or in pixels of the copy shrunk to
    /// `analysisWidth`, with `minSizeIsAtAnalysisWidth`).
    public var minSize: Int = FaceDetectorConfiguration.defaultMinSize
    /// `minSize` unless set: the help and the reference state it from here.
    public static let defaultMinSize = 30
    /// `minSize` counts pixels of the shrunk copy: the same share of the picture whatever the
    /// camera's resolution (30 px at 640 is 60 px of a 1280-wide frame).
    public var minSizeIsAtAnalysisWidth = false
    /// Frames wider than this are shrunk to this width before detection (faces are large; the
    /// cascade's cost grows with area). 0 keeps the full size.
    public var analysisWidth: Int = 640
    /// How long a face may go undetected and keep its ID when it is found again near where it was
    /// last seen. Haar cascades miss faces on single frames; without this a flicker would look like
    /// a face leaving and a new one entering.
    public var trackRetention = MediaTime(seconds: 1)
    /// Analyses in a row (within `trackRetention` of each other) a face must be found in before
    /// it is reported: 1 reports every detection (stills); 2, the command line's default for
    /// video, drops faces that flicker on one frame, at the cost of one analysis's delay.
    public var confirmations = 1
    /// The most pixels OpenCV's image pyramid may hold. The cascade searches copies of the
    /// analysed image shrunk by `scaleFactor` again and again, together about
    /// area x f²/(f²-1) pixels (5.8 times the image at 1.1, 50 times at 1.01), and OpenCV keeps
    /// some 6 bytes per pyramid pixel; an image whose pyramid would exceed this is shrunk further
    /// before detection. Bounds what a full-size 8K frame (`analysisWidth` 0) or a scale factor
    /// near 1 can cost: a quarter of the standard pixel budget, about 100 MB in OpenCV.
    public var maximumPyramidPixels = PixelBudget.standard.maximumPixels / 4

    public init(cascadePath: String) {
        self.cascadePath = cascadePath
    }

    /// The cascades faces are found with unless told otherwise, where `FaceModelLocator` finds
    /// them: the frontal face, the alt2 verifier and the profile cascade. `MetadataOutput()` uses
    /// it, so `.face` is available as on iOS, with no files to find first.
    public static var standard: FaceDetectorConfiguration {
        var configuration = FaceDetectorConfiguration(cascadePath: FaceModelLocator.defaultCascadePath())
        configuration.verificationCascadePath = FaceModelLocator.defaultVerifierPath()
        configuration.profileVerificationCascadePath = FaceModelLocator.defaultProfilePath()
        return configuration
    }
}
