/// The code job of a metadata output: ZBar over the rect of interest of each frame, the second
/// pass (prepared copies, zxing-cpp) on frames ZBar read nothing in when its budget allows, and
/// the last result restamped onto frames found unchanged. Used on one queue only.
final class CodeAnalysis {
    /// How codes are looked for beyond ZBar's first pass, and read as text.
    struct Settings: Equatable {
        /// Milliseconds the second pass may take on a frame; 0 turns it off.
        var secondPassBudget = 0.0
        /// Second passes per second of stream time at most; 0 allows one on every frame.
        var secondPassRate = 0.0
        /// Reads payloads in this encoding when they are valid in it; nil guesses.
        var textEncoding: TextEncoding?
    }

    /// Milliseconds a weak linear read may take to be confirmed when the second pass is off or
    /// has a smaller budget.
    static let confirmationBudget = 20.0
    /// How long (stream time since last seen) a confirmed weak read stays confirmed.
    static let confirmationMemory = MediaTime(seconds: 2)

    /// ZBar scan density (1 = every line) and the plane codes are read from.
    let density: Int
    let resolution: CodeScanResolution

    private var scanner: BarcodeScanner?
    private var secondPass: CodeSecondPass?
    /// zxing-cpp for PDF417, Aztec and DataMatrix; nil unless one of them is wanted.
    private var zxingReader: ZXingFrameReader?
    private var secondPassSchedule = AnalysisSchedule()
    private var appliedGeneration = -1
    private var lastCodes: [ScannedCode] = []
    private var recentlyConfirmed: [(type: MetadataObjectType, payload: [UInt8], time: MediaTime)] = []
    private(set) var secondPassReads = 0
    /// Images zxing-cpp read for the kinds only it reads, and those it died on or overran, over
    /// every reader this analysis had (a change of types makes a new one).
    var zxingLooks: Int { retiredZXingLooks + (zxingReader?.looks ?? 0) }
    var zxingFailures: Int { retiredZXingFailures + (zxingReader?.failures ?? 0) }
    private var retiredZXingLooks = 0, retiredZXingFailures = 0

    init(density: Int, resolution: CodeScanResolution) {
        self.density = density
        self.resolution = resolution
    }

    /// The codes in `frame` whose centre lies in `rectOfInterest`, in frame pixels. The scanners
    /// are rebuilt when the wanted types changed (`generation`). Returns nil when no code type is
    /// wanted. A `still` (`lookout scan`) gets zxing-cpp's whole sweep within the second pass's
    /// budget; a frame, its share of it (`ZXingFrameReader`).
    func detect(in frame: SampleBuffer, types: [MetadataObjectType], generation: Int,
                rectOfInterest: Rect, settings: Settings, still: Bool = false) -> [MetadataObject]? {
        if generation != appliedGeneration {
            let codeTypes = Set(types.filter(\.isMachineReadableCode))
            let zbarTypes = codeTypes.filter { !$0.isReadByZXingOnly }
            scanner = zbarTypes.isEmpty ? nil : BarcodeScanner(types: zbarTypes, density: density, resolution: resolution)
            secondPass = zbarTypes.isEmpty ? nil : CodeSecondPass(types: zbarTypes)
            (retiredZXingLooks, retiredZXingFailures) = (zxingLooks, zxingFailures)
            zxingReader = codeTypes.contains(where: \.isReadByZXingOnly) ? ZXingFrameReader(types: codeTypes) : nil
            appliedGeneration = generation
        }
        lastCodes.removeAll(keepingCapacity: true)
        guard scanner != nil || zxingReader != nil else { return nil }
        let start = MonotonicClock.nanoseconds()
        let image = frame.imageBuffer
        let region = SearchRegion(rectOfInterest, in: image)
        var found = scanner?.scan(image, region: region.pixels, planeIsHalfSize: frame.lumaReduction == 2) ?? []
        if found.contains(where: \.needsConfirmation), let secondPass {
            // At least a short look, second pass or not: an unconfirmed weak read is not reported.
            // A code confirmed lately stays confirmed, so a far-away code read weakly on every
            // frame costs one confirmation, not one a frame.
            let now = frame.presentationTime
            recentlyConfirmed.removeAll { now < $0.time || now.nanoseconds - $0.time.nanoseconds > Self.confirmationMemory.nanoseconds }
            let deadline = start + Int64(max(settings.secondPassBudget, Self.confirmationBudget) * 1e6)
            found.removeAll { code in
                guard code.needsConfirmation else { return false }
                if let index = recentlyConfirmed.firstIndex(where: { $0.type == code.type && $0.payload == code.payload }) {
                    recentlyConfirmed[index].time = now
                    return false
                }
                guard secondPass.confirms(code, in: image, deadline: deadline) else { return true }
                recentlyConfirmed.append((code.type, code.payload, now))
                return false
            }
        }
        if found.isEmpty, settings.secondPassBudget > 0, let secondPass,
           secondPassSchedule.isDue(at: frame.presentationTime, rate: settings.secondPassRate) {
            secondPassSchedule.analysed(at: frame.presentationTime)
            found = secondPass.scan(image, region: region.pixels, deadline: start + Int64(settings.secondPassBudget * 1e6))
            if !found.isEmpty { secondPassReads += 1 }
        }
        if let zxingReader {
            found += still ? zxingReader.readStill(image, budget: Int(settings.secondPassBudget)) : zxingReader.readFrame(image)
        }
        var objects = [MetadataObject]()
        let scale = frame.lumaScale
        for var code in found {
            let box = Rect.enclosing(code.corners)
            guard region.rect.contains(Point(x: box.midX, y: box.midY)) else { continue }
            // Plane pixels to frame pixels.
            if scale != (1, 1) { code.corners = code.corners.map { Point(x: $0.x * scale.x, y: $0.y * scale.y) } }
            lastCodes.append(code)
            objects.append(object(code, in: frame, settings: settings))
        }
        return objects
    }

    /// The last frame's codes, on an unchanged frame.
    func restamp(onto frame: SampleBuffer, settings: Settings) -> [MetadataObject] {
        lastCodes.map { object($0, in: frame, settings: settings) }
    }

    private func object(_ code: ScannedCode, in frame: SampleBuffer, settings: Settings) -> MachineReadableCodeObject {
        MachineReadableCodeObject(type: code.type, frame: frame, payload: code.payload, pixelCorners: code.corners,
                                  decoder: code.decoder, textEncoding: settings.textEncoding)
    }
}
