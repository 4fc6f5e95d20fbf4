import ArgumentParser
import Lookout
import LookoutService

/// Options that choose what to look for and how; shared by `run` and `scan`.
struct DetectionOptions: ParsableArguments {
    @Option(name: .long, help: .key("types"))
    var types: String?

    @Option(name: .customLong("rect-of-interest"), parsing: .unconditional, help: .key("rect-of-interest"))
    var rectOfInterest: String?

    static let densityRange = ConfigurationKey.argumentRange("density", Int.self)
    @Option(name: .long, parsing: .unconditional, help: .key("density"), transform: { try DetectionOptions.densityRange.parse($0) })
    var density: Int?

    static let codeBudgetRange = ConfigurationKey.argumentRange("code-budget", Double.self)
    @Option(name: .customLong("code-budget"), parsing: .unconditional, help: .key("code-budget"), transform: { try DetectionOptions.codeBudgetRange.parse($0) })
    var codeBudget: Double?

    static let codeBudgetRateRange = ConfigurationKey.argumentRange("code-budget-rate", Double.self)
    @Option(name: .customLong("code-budget-rate"), parsing: .unconditional, help: .key("code-budget-rate"), transform: { try DetectionOptions.codeBudgetRateRange.parse($0) })
    var codeBudgetRate: Double?

    static let charsetRange = ConfigurationKey.argumentRange("charset", String.self)
    @Option(name: .long, help: .key("charset"), transform: { try DetectionOptions.charsetRange.parse($0) })
    var charset: String?

    @Option(name: .customLong("code-resolution"), help: .key("code-resolution", listsValues: true))
    var codeResolution: CodeScanResolution?

    static let faceRateRange = ConfigurationKey.argumentRange("face-rate", Double.self)
    @Option(name: .customLong("face-rate"), parsing: .unconditional, help: .key("face-rate"), transform: { try DetectionOptions.faceRateRange.parse($0) })
    var faceRate: Double?

    static let codeScanRateRange = ConfigurationKey.argumentRange("code-scan-rate", Double.self)
    @Option(name: .customLong("code-scan-rate"), parsing: .unconditional, help: .key("code-scan-rate"), transform: { try DetectionOptions.codeScanRateRange.parse($0) })
    var codeScanRate: Double?

    static let faceFullSearchRange = ConfigurationKey.argumentRange("face-full-search", DurationValue.self)
    @Option(name: .customLong("face-full-search"), parsing: .unconditional, help: .key("face-full-search"), transform: { try DetectionOptions.faceFullSearchRange.parse($0) })
    var faceFullSearch: DurationArgument?

    static let motionThresholdRange = ConfigurationKey.argumentRange("motion-threshold", Int.self)
    @Option(name: .customLong("motion-threshold"), parsing: .unconditional, help: .key("motion-threshold"), transform: { try DetectionOptions.motionThresholdRange.parse($0) })
    var motionThreshold: Int?

    @Option(name: .customLong("face-model"), help: .key("face-model"))
    var faceModel: String?

    @Option(name: .customLong("face-verifier"), help: .key("face-verifier"))
    var faceVerifier: String?

    static let verifyNeighborsRange = ConfigurationKey.argumentRange("verify-neighbors", Int.self)
    @Option(name: .customLong("verify-neighbors"), parsing: .unconditional,
            help: .key("verify-neighbors"),
            transform: { try DetectionOptions.verifyNeighborsRange.parse($0) })
    var verifyNeighbors: Int?

    @Option(name: .customLong("face-profile"), help: .key("face-profile"))
    var faceProfile: String?

    @Flag(name: .customLong("face-join"), inversion: .prefixedNo,
          help: .key("face-join"))
    var faceJoin: Bool?

    static let faceConfirmRange = ConfigurationKey.argumentRange("face-confirm", Int.self)
    @Option(name: .customLong("face-confirm"), parsing: .unconditional, help: .key("face-confirm"), transform: { try DetectionOptions.faceConfirmRange.parse($0) })
    var faceConfirm: Int?

    // Below 1.01, OpenCV's image pyramid holds more than 50 copies of the frame.
    static let scaleFactorRange = ConfigurationKey.argumentRange("scale-factor", Double.self)
    @Option(name: .customLong("scale-factor"), parsing: .unconditional,
            help: .key("scale-factor"),
            transform: { try DetectionOptions.scaleFactorRange.parse($0) })
    var scaleFactor: Double?

    static let minNeighborsRange = ConfigurationKey.argumentRange("min-neighbors", Int.self)
    @Option(name: .customLong("min-neighbors"), parsing: .unconditional,
            help: .key("min-neighbors"),
            transform: { try DetectionOptions.minNeighborsRange.parse($0) })
    var minNeighbors: Int?

    static let minFaceRange = ConfigurationKey.argumentRange("min-face", Int.self)
    @Option(name: .customLong("min-face"), parsing: .unconditional, help: .key("min-face"), transform: { try DetectionOptions.minFaceRange.parse($0) })
    var minFace: Int?

    static let faceWidthRange = ConfigurationKey.argumentRange("face-width", Int.self)
    @Option(name: .customLong("face-width"), parsing: .unconditional, help: .key("face-width"), transform: { try DetectionOptions.faceWidthRange.parse($0) })
    var faceWidth: Int?

    static let maxPixelsRange = ConfigurationKey.argumentRange("max-pixels", PixelCountValue.self)
    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: .key("max-pixels"), transform: { try DetectionOptions.maxPixelsRange.parse($0) })
    var maxPixels: PixelCountArgument?

    @Option(name: .customLong("mask"), help: .key("masks", repeatable: true, readsOwnForm: true))
    var masks: [String] = []

    @Option(name: .customLong("zone"), help: .key("zones", repeatable: true, readsOwnForm: true))
    var zones: [String] = []

    mutating func validate() throws {
        _ = try keyFormSettings()
    }

    /// The options whose value is more than one scalar (a list of kinds, a rectangle, polygons),
    /// each read by its key as the file's value is.
    private func keyFormSettings() throws -> ConfigurationSettings {
        var settings = ConfigurationSettings()
        if let types { settings = settings.overlaid(by: try .option("types", .string(types), given: [types])) }
        if let rectOfInterest { settings = settings.overlaid(by: try .option("rect-of-interest", .string(rectOfInterest), given: [rectOfInterest])) }
        if !masks.isEmpty { settings = settings.overlaid(by: try .option("masks", .list(masks.map { .string($0) }), given: masks)) }
        if !zones.isEmpty {
            // NAME=POLYGON is the option's own form of the file's map entry `NAME: POLYGON`.
            let entries = try zones.map { text in
                let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--zone takes NAME=x,y x,y x,y..., not '\(text)'.") }
                return ConfigurationValue.Entry(key: parts[0], value: .string(parts[1]))
            }
            settings = settings.overlaid(by: try .option("zones", .map(entries), given: zones))
        }
        return settings
    }

    /// The largest picture decoded, named by its option.
    var pixelBudget: PixelBudget {
        var settings = ConfigurationSettings()
        settings.maxPixels = maxPixels
        return DetectionSetup.pixelBudget(settings, settingName: "--max-pixels")
    }

    /// The options given, as configuration settings (nil for those not given).
    func settings() throws -> ConfigurationSettings {
        var settings = try keyFormSettings()
        settings.density = density
        settings.codeBudget = codeBudget
        settings.codeBudgetRate = codeBudgetRate
        settings.charset = charset
        settings.codeResolution = codeResolution
        settings.faceRate = faceRate
        settings.faceFullSearch = faceFullSearch
        settings.codeScanRate = codeScanRate
        settings.motionThreshold = motionThreshold
        settings.faceModel = faceModel
        settings.faceVerifier = faceVerifier
        settings.verifyNeighbors = verifyNeighbors
        settings.faceProfile = faceProfile
        settings.faceJoin = faceJoin
        settings.faceConfirm = faceConfirm
        settings.scaleFactor = scaleFactor
        settings.minNeighbors = minNeighbors
        settings.minFace = minFace
        settings.faceWidth = faceWidth
        settings.maxPixels = maxPixels
        return settings
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

extension CodeScanResolution: ExpressibleByArgument {}
