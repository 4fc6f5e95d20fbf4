import Lookout

/// What a camera's (or `scan`'s) detection settings make: the face detector's configuration and
/// the metadata output, with the defaults of `profile` for what was not given.
public enum DetectionSetup {
    /// The face detector settings, when faces are asked for.
    public static func faceConfiguration(_ settings: ConfigurationSettings, profile: DetectionProfile) -> FaceDetectorConfiguration? {
        guard settings.resolved(\.types).contains(.face) else { return nil }
        var configuration = FaceDetectorConfiguration(cascadePath: settings.faceModel ?? FaceModelLocator.defaultCascadePath())
        configuration.scaleFactor = settings.scaleFactor ?? profile.scaleFactor
        configuration.minNeighbors = settings.resolved(\.minNeighbors)
        configuration.minSize = settings.minFace ?? configuration.minSize // the library's default, at the analysis width
        configuration.minSizeIsAtAnalysisWidth = settings.minFace == nil && profile == .video
        configuration.confirmations = profile == .stills ? 1 : settings.faceConfirm ?? profile.faceConfirmations
        configuration.analysisWidth = settings.faceWidth ?? profile.faceWidth
        if settings.faceVerifier?.lowercased() != "none" {
            configuration.verificationCascadePath = settings.faceVerifier ?? FaceModelLocator.defaultVerifierPath()
            // One knob for how sure a face must be: the verifier searches four times as densely
            // (scale 1.05 against 1.1 and finer steps), so it needs four times the hits.
            let verifyNeighbors = settings.verifyNeighbors ?? 4 * max(1, configuration.minNeighbors)
            configuration.verificationMinNeighbors = verifyNeighbors
            if settings.faceProfile?.lowercased() != "none" {
                configuration.profileVerificationCascadePath = settings.faceProfile ?? FaceModelLocator.defaultProfilePath()
                // The profile cascade gives fewer hits on a face than alt2: 7 where alt2 needs 12.
                configuration.profileVerificationMinNeighbors = max(1, (verifyNeighbors * 7 + 11) / 12)
            }
            // The joined search's faces need a third more hits than the verifier's: 16 for 12.
            if settings.faceJoin ?? profile.faceJoin { configuration.joinMinNeighbors = (verifyNeighbors * 4 + 2) / 3 }
        }
        configuration.trackRetention = settings.resolved(\.faceLeave).time
        configuration.maximumPyramidPixels = max(64 * 64, pixelBudget(settings).maximumPixels / 4)
        return configuration
    }

    /// The largest frame decoded; a refusal names it `settingName` (the key as the user wrote it).
    public static func pixelBudget(_ settings: ConfigurationSettings, settingName: String = "max-pixels") -> PixelBudget {
        PixelBudget(maximumPixels: settings.resolved(\.maxPixels).pixels, settingName: settingName)
    }

    /// The forced charset of code payloads, nil for auto.
    public static func textEncoding(_ settings: ConfigurationSettings) -> TextEncoding? {
        settings.charset.flatMap { TextEncoding(rawValue: $0) }
    }

    /// A metadata output in `session`, configured from `settings`. Throws what the output refuses
    /// (no face model).
    /// - Parameters:
    ///   - settings: the camera's effective settings.
    ///   - session: the session the output joins.
    ///   - profile: video or stills, whose defaults apply where `settings` say nothing.
    ///   - isRealTime: the input is a camera or paced: the motion gate is on by default.
    public static func makeMetadataOutput(_ settings: ConfigurationSettings, in session: CaptureSession, profile: DetectionProfile,
                                          isRealTime: Bool = false) throws(CaptureError) -> MetadataOutput {
        let output = MetadataOutput(faceDetector: faceConfiguration(settings, profile: profile),
                                    codeScanDensity: settings.resolved(\.density),
                                    codeScanResolution: settings.codeResolution ?? profile.codeResolution)
        try session.addOutput(output)
        try output.setMetadataObjectTypes(settings.resolved(\.types))
        output.rectOfInterest = settings.rectOfInterest ?? .unit
        output.faceAnalysisRate = profile == .stills ? 0 : settings.resolved(\.faceRate)
        output.unchangedFrameThreshold = settings.motionThreshold ?? (profile == .video && isRealTime ? 4 : 0)
        output.faceFullSearchInterval = profile == .stills ? 0
            : settings.faceFullSearch.map { $0.time.seconds } ?? profile.faceFullSearch
        // Windows between whole-frame scans for video, as faces: they read what the whole frame
        // reads (tests CodeWindowSearchTests), for a fraction of ZBar's work.
        output.codeWholeFrameRate = profile == .stills ? 0 : settings.codeScanRate ?? profile.codeScanRate
        output.codeSecondPassBudget = settings.codeBudget ?? profile.codeBudget
        output.codeSecondPassRate = profile == .stills ? 0 : settings.resolved(\.codeBudgetRate)
        output.codeTextEncoding = textEncoding(settings)
        output.regions = try regions(settings)
        return output
    }

    /// The masks and zones.
    public static func regions(_ settings: ConfigurationSettings) throws(CaptureError) -> DetectionRegions {
        guard settings.masks != nil || settings.zones != nil else { return .none }
        do throws(RegionError) {
            return try DetectionRegions(masks: settings.masks ?? [], zones: settings.zones ?? [])
        } catch {
            throw .invalidSetting("masks and zones: \(error)")
        }
    }

    /// The event settings.
    public static func eventSettings(_ settings: ConfigurationSettings) -> EventSettings {
        var events = EventSettings()
        events.dedupeWindow = settings.resolved(\.dedupe).time
        events.presenceOnCount = settings.resolved(\.presenceOn)
        events.presenceOnWindow = settings.resolved(\.presenceWindow).time
        events.presenceOffDelay = settings.resolved(\.presenceOff).time
        events.faceLeaveDelay = settings.resolved(\.faceLeave).time
        return events
    }
}

extension DetectionSetup {
    /// `settings` with the defaults a video camera's detection takes filled in, as the service
    /// decides them for `input` (what `lookout config print` shows).
    public static func filledVideoDefaults(_ settings: ConfigurationSettings, input: String) -> ConfigurationSettings {
        var filled = settings
        let profile = DetectionProfile.video
        let isRealTime = settings.realtime == true || input.isEmpty || FFmpegInput.isURL(input) || CameraInputFactory.isDevice(input)
        filled.codeBudget = settings.codeBudget ?? profile.codeBudget
        filled.codeResolution = settings.codeResolution ?? profile.codeResolution
        filled.scaleFactor = settings.scaleFactor ?? profile.scaleFactor
        filled.faceWidth = settings.faceWidth ?? profile.faceWidth
        filled.motionThreshold = settings.motionThreshold ?? (isRealTime ? 4 : 0)
        filled.faceFullSearch = settings.faceFullSearch ?? DurationValue(time: MediaTime(seconds: profile.faceFullSearch))
        filled.codeScanRate = settings.codeScanRate ?? profile.codeScanRate
        filled.faceModel = settings.faceModel ?? FaceModelLocator.defaultCascadePath()
        filled.faceVerifier = settings.faceVerifier ?? FaceModelLocator.defaultVerifierPath()
        filled.faceProfile = settings.faceProfile ?? FaceModelLocator.defaultProfilePath()
        filled.faceJoin = settings.faceJoin ?? profile.faceJoin
        return filled
    }
}
