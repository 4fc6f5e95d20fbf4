import ArgumentParser
import Lookout
import LookoutService

/// Options that choose what to look for and how; shared by `run` and `scan`.
struct DetectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Comma-separated kinds to look for. (default: " + MetadataObjectType.defaultTypes.map(\.rawValue).joined(separator: ",") + ")",
        discussion: "Kinds: face, " + MetadataObjectType.allCodeTypes.filter { !$0.isReadByZXingOnly }.map(\.rawValue).joined(separator: ", ")
            + " (read by ZBar); " + MetadataObjectType.zxingOnlyTypes.map(\.rawValue).joined(separator: ", ")
            + " (read by zxing-cpp: boarding passes, tickets, GS1 labels; they cost nothing unless asked for).",
        valueName: "kinds"))
    var types: String?

    @Option(name: .customLong("rect-of-interest"), parsing: .unconditional, help: ArgumentHelp(
        "Search only this part of the frame: x,y,width,height as fractions of the frame, top-left origin.",
        valueName: "x,y,w,h"))
    var rectOfInterest: String?

    static let densityRange = ConfigurationKey.argumentRange("density", Int.self)
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "ZBar scan density (\(DetectionOptions.densityRange.text)): 1 scans every line; 2-4 are faster and may miss thin or small codes (default \(DetectionProfile.scanAndRun(\.density))).",
        valueName: "n"), transform: { try DetectionOptions.densityRange.parse($0) })
    var density: Int?

    static let codeBudgetRange = ConfigurationKey.argumentRange("code-budget", Double.self)
    @Option(name: .customLong("code-budget"), parsing: .unconditional, help: ArgumentHelp(
        "Milliseconds a frame or image ZBar read no code in may spend on a second look: ZBar on prepared copies (contrast stretched, halved, inverted, sharpened, and enlarged twice for pictures up to a megapixel) and zxing-cpp; in scan, PDF417, Aztec and DataMatrix get as long again (\(DetectionOptions.codeBudgetRange.text); 0 = off; default \(DetectionProfile.scanAndRun(\.codeBudget))).",
        valueName: "ms"), transform: { try DetectionOptions.codeBudgetRange.parse($0) })
    var codeBudget: Double?

    static let codeBudgetRateRange = ConfigurationKey.argumentRange("code-budget-rate", Double.self)
    @Option(name: .customLong("code-budget-rate"), parsing: .unconditional, help: ArgumentHelp(
        "Second looks per second of video at most (\(DetectionOptions.codeBudgetRateRange.text); 0 = on every frame ZBar read nothing in; default \(ConfigurationKey.defaultText(of: "code-budget-rate"))). Bounds what a camera showing no code costs.",
        valueName: "n"), transform: { try DetectionOptions.codeBudgetRateRange.parse($0) })
    var codeBudgetRate: Double?

    @Option(name: .long, help: ArgumentHelp(
        "Read code payloads in this charset when their bytes are valid in it: auto (guess, the default), " + TextEncoding.allCases.map(\.rawValue).joined(separator: ", ") + ". raw_base64 always holds the exact bytes. (default: \(ConfigurationKey.defaultText(of: "charset")))",
        valueName: "name"))
    var charset: String?

    @Option(name: .customLong("code-resolution"), help: ArgumentHelp(
        "Image ZBar reads: full, half (a quarter of the work; for codes whose bars and modules are at least 2 pixels wide), or auto (half for frames 1280 pixels wide or more). Default \(DetectionProfile.scanAndRun(\.codeResolution)). At half, MJPEG frames not due for faces are decoded at half size.",
        valueName: "full|half|auto"))
    var codeResolution: CodeScanResolution?

    static let faceRateRange = ConfigurationKey.argumentRange("face-rate", Double.self)
    @Option(name: .customLong("face-rate"), parsing: .unconditional, help: ArgumentHelp(
        "Face analyses per second of video at most (\(DetectionOptions.faceRateRange.text); 0 = every frame; default \(ConfigurationKey.defaultText(of: "face-rate"))). Codes are still read on every frame; faces run beside them on their own queue.",
        valueName: "n"), transform: { try DetectionOptions.faceRateRange.parse($0) })
    var faceRate: Double?

    static let codeScanRateRange = ConfigurationKey.argumentRange("code-scan-rate", Double.self)
    @Option(name: .customLong("code-scan-rate"), parsing: .unconditional, help: ArgumentHelp(
        "Whole-frame code scans per second of video at most; in between, ZBar reads only windows around the codes it follows (and, for cameras, around small changes), where it reads what the whole frame would, and frames with nothing to look at are not decoded (\(DetectionOptions.codeScanRateRange.text); 0 = the whole frame on every frame; default \(DetectionProfile.words(DetectionProfile.video.codeScanRate)): a code appearing anywhere is read within 100 ms at 30 fps; scan reads whole pictures).",
        valueName: "n"), transform: { try DetectionOptions.codeScanRateRange.parse($0) })
    var codeScanRate: Double?

    static let faceFullSearchRange = ConfigurationKey.argumentRange("face-full-search", DurationValue.self)
    @Option(name: .customLong("face-full-search"), parsing: .unconditional, help: ArgumentHelp(
        "Time between searches of the whole picture for faces; in between, an analysis looks only around the faces being followed and where the picture moved, for a fraction of the work, and a face that appears where nothing seemed to move is found within this long (\(DetectionOptions.faceFullSearchRange.text); 0 = the whole picture at every analysis; default \(DurationValue.words(seconds: DetectionProfile.video.faceFullSearch)); scan searches whole pictures).",
        valueName: "time"), transform: { try DetectionOptions.faceFullSearchRange.parse($0) })
    var faceFullSearch: DurationArgument?

    static let motionThresholdRange = ConfigurationKey.argumentRange("motion-threshold", Int.self)
    @Option(name: .customLong("motion-threshold"), parsing: .unconditional, help: ArgumentHelp(
        "Skip the detectors on frames where no 16x16 block changed by more than this many grey levels since the last analysed frame; they get that frame's results (\(DetectionOptions.motionThresholdRange.text); 0 = analyse every frame; default 4 for cameras and --realtime, 0 for files read as fast as possible). After a second without change, one frame in three is looked at.",
        valueName: "levels"), transform: { try DetectionOptions.motionThresholdRange.parse($0) })
    var motionThreshold: Int?

    @Option(name: .customLong("face-model"), help: ArgumentHelp(
        "Haar cascade XML for faces (default: \(ConfigurationKey.defaultText(of: "face-model"))).",
        valueName: "path"))
    var faceModel: String?

    @Option(name: .customLong("face-verifier"), help: ArgumentHelp(
        "A second Haar cascade every face must also pass, searched around each candidate (default: models/haarcascade_frontalface_alt2.xml; none = off). Removes most false faces on textures, checkerboards and animals.",
        valueName: "path|none"))
    var faceVerifier: String?

    static let verifyNeighborsRange = ConfigurationKey.argumentRange("verify-neighbors", Int.self)
    @Option(name: .customLong("verify-neighbors"), parsing: .unconditional,
            help: ArgumentHelp("Face verifier: raw hits it needs around a face (\(DetectionOptions.verifyNeighborsRange.text); default: 4 × --min-neighbors, 12). The profile cascade needs 7/12 of it.", valueName: "n"),
            transform: { try DetectionOptions.verifyNeighborsRange.parse($0) })
    var verifyNeighbors: Int?

    @Option(name: .customLong("face-profile"), help: ArgumentHelp(
        "A profile-face Haar cascade that may confirm, either way round, a face the verifier refused: faces turned too far for it, or half hidden by a hand (default: models/haarcascade_profileface.xml; none = off; no effect with --face-verifier none).",
        valueName: "path|none"))
    var faceProfile: String?

    @Flag(name: .customLong("face-join"), inversion: .prefixedNo,
          help: "Also search the whole frame with the verifier's cascade and keep the faces the first cascade confirms around them: faces either cascade misses alone, for a second full search; no effect with --face-verifier none. (default: \(DetectionProfile.scanAndRun(\.faceJoin) { $0 ? "on" : "off" }))")
    var faceJoin: Bool?

    static let faceConfirmRange = ConfigurationKey.argumentRange("face-confirm", Int.self)
    @Option(name: .customLong("face-confirm"), parsing: .unconditional, help: ArgumentHelp(
        "Video: analyses a face must be found in (within a second of each other) before it is reported (\(DetectionOptions.faceConfirmRange.text); default \(ConfigurationKey.defaultText(of: "face-confirm"))). 1 reports a face on its first analysis; 2 drops faces that flicker on one frame, one analysis later (0.1 s at --face-rate 10).",
        valueName: "n"), transform: { try DetectionOptions.faceConfirmRange.parse($0) })
    var faceConfirm: Int?

    // Below 1.01, OpenCV's image pyramid holds more than 50 copies of the frame.
    static let scaleFactorRange = ConfigurationKey.argumentRange("scale-factor", Double.self)
    @Option(name: .customLong("scale-factor"), parsing: .unconditional,
            help: ArgumentHelp("Haar detector: window growth between scales (\(DetectionOptions.scaleFactorRange.text); default \(DetectionProfile.scanAndRun(\.scaleFactor))).", valueName: "factor"),
            transform: { try DetectionOptions.scaleFactorRange.parse($0) })
    var scaleFactor: Double?

    static let minNeighborsRange = ConfigurationKey.argumentRange("min-neighbors", Int.self)
    @Option(name: .customLong("min-neighbors"), parsing: .unconditional,
            help: ArgumentHelp("Haar detector: overlapping hits a face needs (\(DetectionOptions.minNeighborsRange.text)). (default: \(ConfigurationKey.defaultText(of: "min-neighbors")))", valueName: "n"),
            transform: { try DetectionOptions.minNeighborsRange.parse($0) })
    var minNeighbors: Int?

    static let minFaceRange = ConfigurationKey.argumentRange("min-face", Int.self)
    @Option(name: .customLong("min-face"), parsing: .unconditional, help: ArgumentHelp(
        "Haar detector: smallest face, in frame pixels (\(DetectionOptions.minFaceRange.text)). Default: \(FaceDetectorConfiguration.defaultMinSize) for scan; for run, \(FaceDetectorConfiguration.defaultMinSize) pixels of the --face-width copy (\(FaceDetectorConfiguration.defaultMinSize * 1280 / DetectionProfile.video.faceWidth) in a 1280-wide frame).",
        valueName: "pixels"), transform: { try DetectionOptions.minFaceRange.parse($0) })
    var minFace: Int?

    static let faceWidthRange = ConfigurationKey.argumentRange("face-width", Int.self)
    @Option(name: .customLong("face-width"), parsing: .unconditional, help: ArgumentHelp(
        "Shrink frames wider than this before face detection (\(DetectionOptions.faceWidthRange.text); default \(DetectionProfile.scanAndRun(\.faceWidth))). Frames are also shrunk when OpenCV's image pyramid would exceed a quarter of --max-pixels.",
        valueName: "pixels"), transform: { try DetectionOptions.faceWidthRange.parse($0) })
    var faceWidth: Int?

    static let maxPixelsRange = ConfigurationKey.argumentRange("max-pixels", PixelCountValue.self)
    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: ArgumentHelp(
        "The largest frame or image decoded, as a pixel count or WxH (\(DetectionOptions.maxPixelsRange.text); default 8192x8192). Larger frames are dropped as corrupt before decoding; larger images and Y4M headers are refused.",
        valueName: "n|WxH"), transform: { try DetectionOptions.maxPixelsRange.parse($0) })
    var maxPixels: PixelCountArgument?

    @Option(name: .customLong("mask"), help: ArgumentHelp(
        "A part of the picture never to report, as points x,y (fractions of the frame, at least 3): detections whose centre is in it are dropped, and motion in it does not wake the detectors (repeatable).",
        valueName: "x,y x,y x,y..."))
    var masks: [String] = []

    @Option(name: .customLong("zone"), help: ArgumentHelp(
        "A named part of the picture, as NAME=x,y x,y x,y...: lines whose detection's centre is in it carry \"zone\"; presence is kept per zone (repeatable; the first zone given wins).",
        valueName: "name=x,y x,y x,y..."))
    var zones: [String] = []

    mutating func validate() throws {
        _ = try parsedTypes()
        _ = try parsedRectOfInterest()
        _ = try parsedCharset()
        _ = try parsedMasks()
        _ = try parsedZones()
    }

    func parsedTypes() throws -> [MetadataObjectType]? {
        guard let types else { return nil }
        let known = MetadataObjectType.allCodeTypes + [.face]
        let names = types.split(separator: ",").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--types needs at least one kind.") }
        return try names.map { name in
            guard let type = known.first(where: { $0.rawValue == name }) else {
                throw ValidationError("Unknown kind '\(name)' in --types; known kinds: "
                                      + known.map(\.rawValue).joined(separator: ", ") + ".")
            }
            return type
        }
    }

    func parsedRectOfInterest() throws -> Rect? {
        guard let rectOfInterest else { return nil }
        let parts = rectOfInterest.split(separator: ",").map { Double($0.trimmingSpaces()) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
              let rect = Rect(fractionsOfFrame: x, y, w, h) else {
            throw ValidationError("--rect-of-interest takes x,y,width,height as fractions within 0...1, e.g. 0.25,0.25,0.5,0.5.")
        }
        return rect
    }

    /// The charset's name as the configuration holds it ("auto" or an encoding's).
    func parsedCharset() throws -> String? {
        guard let charset else { return nil }
        let name = charset.lowercased()
        if name == "auto" { return name }
        let aliases: [String: TextEncoding] = ["utf8": .utf8, "latin1": .isoLatin1, "latin-1": .isoLatin1, "sjis": .shiftJIS,
                                               "shift-jis": .shiftJIS, "cp932": .shiftJIS]
        guard let encoding = TextEncoding(rawValue: name) ?? aliases[name] else {
            throw ValidationError("Unknown --charset '\(charset)'; known: auto, " + TextEncoding.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        return encoding.rawValue
    }

    func parsedMasks() throws -> [RegionPolygon]? {
        guard !masks.isEmpty else { return nil }
        return try masks.map { text in
            do throws(RegionError) { return try RegionPolygon(parsing: text) } catch {
                throw ValidationError("--mask '\(text)': \(error).")
            }
        }
    }

    func parsedZones() throws -> [Zone]? {
        guard !zones.isEmpty else { return nil }
        let parsed = try zones.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--zone takes NAME=x,y x,y x,y..., not '\(text)'.") }
            do throws(RegionError) { return try Zone(name: parts[0], polygon: try RegionPolygon(parsing: parts[1])) } catch {
                throw ValidationError("--zone '\(text)': \(error).")
            }
        }
        do throws(RegionError) { _ = try DetectionRegions(zones: parsed) } catch { throw ValidationError("--zone: \(error).") }
        return parsed
    }

    var pixelBudget: PixelBudget {
        PixelBudget(maximumPixels: maxPixels?.pixels ?? PixelBudget.standard.maximumPixels, settingName: "--max-pixels")
    }

    /// The options given, as configuration settings (nil for those not given).
    func settings() throws -> ConfigurationSettings {
        var settings = ConfigurationSettings()
        settings.types = try parsedTypes()
        settings.rectOfInterest = try parsedRectOfInterest()
        settings.density = density
        settings.codeBudget = codeBudget
        settings.codeBudgetRate = codeBudgetRate
        settings.charset = try parsedCharset()
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
        settings.masks = try parsedMasks()
        settings.zones = try parsedZones()
        return settings
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

extension CodeScanResolution: ExpressibleByArgument {}
