/// The code job of a metadata output. On a frame of video: ZBar over the rect of interest (or, with
/// a whole-frame rate, over windows between whole-frame scans: `CodeWindowSearch`), the second
/// pass (zxing-cpp, prepared copies) on whole-frame scans ZBar read nothing in when its budget
/// allows, and the last result restamped onto frames found unchanged. On a still (`lookout scan`):
/// zxing-cpp's search for every symbol first, ZBar's reads added where zxing-cpp read nothing,
/// and the prepared copies when neither read anything (`StillCodeReader`). Used on one queue only.
final class CodeAnalysis {
    /// How codes are looked for beyond ZBar's first pass, and read as text.
    struct Settings: Equatable {
        /// Milliseconds the second pass may take on a frame; 0 turns it off.
        var secondPassBudget = 0.0
        /// Second passes per second of stream time at most; 0 allows one on every frame.
        var secondPassRate = 0.0
        /// Reads payloads in this encoding when they are valid in it; nil guesses.
        var textEncoding: TextEncoding?
        /// Whole-frame scans per second of stream time; 0 scans the whole frame every time.
        var wholeFrameRate = 0.0
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
    /// zxing-cpp and ZBar together for stills; made on the first still.
    private var stillReader: StillCodeReader?
    private var codeTypes = Set<MetadataObjectType>()
    /// zxing-cpp for PDF417, Aztec and DataMatrix; nil unless one of them is wanted.
    private var zxingReader: ZXingFrameReader?
    private var secondPassSchedule = AnalysisSchedule()
    private var windowSearch = CodeWindowSearch()
    private var appliedGeneration = -1
    private var appliedRectOfInterest = Rect.unit
    private var lastCodes: [ScannedCode] = []
    private var recentlyConfirmed: [(type: MetadataObjectType, payload: [UInt8], time: MediaTime)] = []
    var secondPassReads: Int { ownSecondPassReads + (stillReader?.secondPassReads ?? 0) }
    private var ownSecondPassReads = 0
    /// Frames ZBar read whole, and frames it read in windows only (`Settings.wholeFrameRate`).
    private(set) var wholeFrameScans = 0, windowScans = 0
    /// Images zxing-cpp read for the kinds only it reads, and those it died on or overran, over
    /// every reader this analysis had (a change of types makes a new one).
    var zxingLooks: Int { retiredZXingLooks + (zxingReader?.looks ?? 0) + (stillReader?.zxingLooks ?? 0) }
    var zxingFailures: Int { retiredZXingFailures + (zxingReader?.failures ?? 0) + (stillReader?.zxingFailures ?? 0) }
    private var retiredZXingLooks = 0, retiredZXingFailures = 0

    init(density: Int, resolution: CodeScanResolution) {
        self.density = density
        self.resolution = resolution
    }

    /// The codes in `frame` whose centre lies in `rectOfInterest`, in frame pixels. The scanners
    /// are rebuilt when the wanted types changed (`generation`). Returns nil when no code type is
    /// wanted. A `still` (`lookout scan`) is read by `StillCodeReader`, within the second pass's
    /// budget; a frame by ZBar first (`ZXingFrameReader` for the kinds only zxing-cpp reads).
    func detect(in frame: SampleBuffer, types: [MetadataObjectType], generation: Int,
                rectOfInterest: Rect, settings: Settings, still: Bool = false) -> [MetadataObject]? {
        if generation != appliedGeneration {
            codeTypes = Set(types.filter(\.isMachineReadableCode))
            let zbarTypes = codeTypes.filter { !$0.isReadByZXingOnly }
            scanner = zbarTypes.isEmpty ? nil : BarcodeScanner(types: zbarTypes, density: density, resolution: resolution)
            secondPass = zbarTypes.isEmpty ? nil : CodeSecondPass(types: zbarTypes)
            (retiredZXingLooks, retiredZXingFailures, ownSecondPassReads) = (zxingLooks, zxingFailures, secondPassReads)
            stillReader = nil
            zxingReader = codeTypes.contains(where: \.isReadByZXingOnly) ? ZXingFrameReader(types: codeTypes) : nil
            appliedGeneration = generation
            windowSearch.reset()
        }
        if rectOfInterest != appliedRectOfInterest {
            appliedRectOfInterest = rectOfInterest
            windowSearch.reset()
        }
        lastCodes.removeAll(keepingCapacity: true)
        guard !codeTypes.isEmpty else { return nil }
        let start = MonotonicClock.nanoseconds()
        let image = frame.imageBuffer
        let region = SearchRegion(rectOfInterest, in: image)
        let scale = frame.lumaScale
        let searchesWindows = settings.wholeFrameRate > 0 && !still
        var plan = CodeWindowSearch.Plan.wholeFrame
        if searchesWindows {
            let regionInFrame = region.rect.scaled(x: scale.x, y: scale.y)
            plan = windowSearch.plan(at: frame.presentationTime, rate: settings.wholeFrameRate, region: regionInFrame,
                                     frameWidth: frame.formatDescription.width, frameHeight: frame.formatDescription.height)
        }
        var found: [ScannedCode]
        var readBySecondPass = false
        if still {
            if stillReader == nil { stillReader = StillCodeReader(types: codeTypes, zbar: scanner) }
            found = stillReader?.read(image, region: region.pixels, budget: settings.secondPassBudget,
                                      planeIsHalfSize: frame.lumaReduction == 2) ?? []
            return finish(found, in: frame, region: region, settings: settings)
        }
        switch plan {
        case .wholeFrame:
            found = scanner?.scan(image, region: region.pixels, planeIsHalfSize: frame.lumaReduction == 2) ?? []
        case .windows(let windows):
            found = scanner.map { scanWindows(windows, of: frame, region: region, with: $0) } ?? []
            let lost = windowSearch.tracker.tracks.contains { track in
                !found.contains { $0.type == track.type && $0.payload == track.payload }
            }
            if lost, let scanner {
                // Gone from its window: moved further than predicted, the scene cut, or it left.
                // The whole frame tells, on this frame.
                plan = .wholeFrame
                windowSearch.scannedWholeFrame(at: frame.presentationTime)
                found = scanner.scan(image, region: region.pixels, planeIsHalfSize: frame.lumaReduction == 2)
            }
        }
        if scanner != nil {
            if plan == .wholeFrame { wholeFrameScans += 1 } else { windowScans += 1 }
        }
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
        if found.isEmpty, plan == .wholeFrame, settings.secondPassBudget > 0, let secondPass,
           secondPassSchedule.isDue(at: frame.presentationTime, rate: settings.secondPassRate) {
            secondPassSchedule.analysed(at: frame.presentationTime)
            found = secondPass.scan(image, region: region.pixels, deadline: start + Int64(settings.secondPassBudget * 1e6))
            if !found.isEmpty { ownSecondPassReads += 1 }
            readBySecondPass = !found.isEmpty
        }
        if let zxingReader {
            found += still ? zxingReader.readStill(image, budget: Int(settings.secondPassBudget)) : zxingReader.readFrame(image)
        }
        let objects = finish(found, in: frame, region: region, settings: settings)
        // A code only a prepared copy gave up (inverted, stretched) is not in a window's plain
        // ZBar read either: it is not followed, or every frame would look for it twice.
        if searchesWindows { windowSearch.found(readBySecondPass ? [] : lastCodes, at: frame.presentationTime) }
        return objects
    }

    /// The codes whose centre lies in the region, in frame pixels, kept as the last result.
    private func finish(_ found: [ScannedCode], in frame: SampleBuffer, region: SearchRegion, settings: Settings) -> [MetadataObject] {
        let scale = frame.lumaScale
        var objects = [MetadataObject]()
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

    /// Whether the frame at `time` will be read at all: false between whole-frame scans when the
    /// last look read nothing (no window to search, nothing to restamp) and zxing-cpp's kinds are
    /// not wanted; also false when no code is wanted. True while the types of `generation` are
    /// not yet applied. Asked while this analysis is idle.
    func looksAtPixels(at time: MediaTime, generation: Int, settings: Settings) -> Bool {
        guard settings.wholeFrameRate > 0, generation == appliedGeneration else { return true }
        if scanner == nil && zxingReader == nil { return false }
        return zxingReader != nil || !lastCodes.isEmpty || windowSearch.isWholeFrameDue(at: time, rate: settings.wholeFrameRate)
    }

    /// Adds the blocks the motion gate saw change in a frame about to be scanned (everywhere
    /// without a gate): where windows look for codes that appear.
    func gatherChanges(_ blocks: ChangedBlocks) {
        windowSearch.gather(blocks)
    }

    /// ZBar over `windows` (frame pixels): the codes in the plane's pixels, each once. A code read
    /// against a window's side (within the region) may go on past it, and is read again in a
    /// window around it.
    private func scanWindows(_ windows: [Rect], of frame: SampleBuffer, region: SearchRegion,
                             with scanner: BarcodeScanner) -> [ScannedCode] {
        let image = frame.imageBuffer, scale = frame.lumaScale, half = frame.lumaReduction == 2
        // Scan lines lie 2 x density plane pixels apart at most (a halved plane's every other line).
        let edge = Double(2 * scanner.density + 2)
        var codes = [ScannedCode]()
        func add(_ read: [ScannedCode]) {
            for code in read {
                let box = Rect.enclosing(code.corners)
                if let index = codes.firstIndex(where: { $0.type == code.type && $0.payload == code.payload
                                                         && Rect.enclosing($0.corners).intersection(box).area > 0 }) {
                    if code.scanLines > codes[index].scanLines { codes[index] = code }
                } else {
                    codes.append(code)
                }
            }
        }
        for window in windows {
            let inPlane = Self.planeRegion(window, scale: scale)
            guard let read = scanner.scan(image, window: inPlane, region: region.pixels, planeIsHalfSize: half) else { continue }
            let clipped = Rect(x: Double(inPlane.x), y: Double(inPlane.y), width: Double(inPlane.width),
                               height: Double(inPlane.height)).intersection(region.rect)
            var settled = [ScannedCode]()
            for code in read {
                let box = Rect.enclosing(code.corners)
                let against = (box.x - clipped.x < edge && clipped.x > region.rect.x)
                    || (box.y - clipped.y < edge && clipped.y > region.rect.y)
                    || (clipped.maxX - box.maxX < edge && clipped.maxX < region.rect.maxX)
                    || (clipped.maxY - box.maxY < edge && clipped.maxY < region.rect.maxY)
                guard against else {
                    settled.append(code)
                    continue
                }
                let margin = max(CodeTracker.minimumMargin / scale.x, CodeTracker.relativeMargin * max(box.width, box.height))
                let around = Rect(x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin)
                let again = scanner.scan(image, window: Self.planeRegion(around, scale: (1, 1)), region: region.pixels,
                                         planeIsHalfSize: half) ?? []
                settled += again.filter { $0.type == code.type && $0.payload == code.payload }
            }
            add(settled)
        }
        return codes
    }

    /// A rectangle in frame pixels as the plane pixels that cover it (outward).
    private static func planeRegion(_ rect: Rect, scale: (x: Double, y: Double)) -> PlaneRegion {
        let left = Int((max(0, rect.x) / scale.x).rounded(.down)), top = Int((max(0, rect.y) / scale.y).rounded(.down))
        return (left, top, max(0, Int((rect.maxX / scale.x).rounded(.up)) - left), max(0, Int((rect.maxY / scale.y).rounded(.up)) - top))
    }

    /// The last frame's codes, on an unchanged frame.
    func restamp(onto frame: SampleBuffer, settings: Settings) -> [MetadataObject] {
        lastCodes.map { object($0, in: frame, settings: settings) }
    }

    private func object(_ code: ScannedCode, in frame: SampleBuffer, settings: Settings) -> MachineReadableCodeObject {
        MachineReadableCodeObject(type: code.type, frame: frame, payload: code.payload, pixelCorners: code.corners,
                                  decoder: code.decoder, textEncoding: settings.textEncoding,
                                  symbologyIdentifier: code.symbologyIdentifier)
    }
}
