import CPlanes

/// EAN-13 symbols read from the grey levels of their bars (`lk_ean13_from_profiles`): a camera
/// too close to focus blurs bars by most of a module, where neither a threshold nor a
/// deconvolution of the noisy pixels tells them apart, but the rows across the bars averaged
/// still show the blurred symbol, and the symbol that explains them best is found whole (the
/// check digit holding). The middle of the bars is read in two halves, each on its own: they are
/// two reads of the place, vouched for as two copies are (`StillCodeReader.vouching`), and one
/// half alone stands for nothing.
enum EAN13ProfileReader {
    /// The two halves' reads of the one symbol in `region` of the plane, in the plane's pixels, as
    /// the wanted type an EAN-13 is reported as (`ZXingScanner.type(ofEAN13:wanted:)`); each half
    /// gives nothing when its read did not stand.
    static func halves(in pixels: PixelBuffer, region: PlaneRegion, wanted types: Set<MetadataObjectType>) -> [[ScannedCode]] {
        var bands = [lk_ean13_band](repeating: lk_ean13_band(), count: 2)
        var corners = [Float](repeating: 0, count: 8)
        guard lk_ean13_from_profiles(pixels.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(pixels.bytesPerRow),
                                     Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height), &bands, &corners) == 1
        else { return [[], []] }
        let points = (0..<4).map {
            Point(x: min(max(0, Double(corners[2 * $0])), Double(pixels.width)), y: min(max(0, Double(corners[2 * $0 + 1])), Double(pixels.height)))
        }
        return bands.map { band in
            var payload = withUnsafeBytes(of: band.digits) { Array($0.prefix { $0 != 0 }) }
            guard payload.count == 13, let type = ZXingScanner.type(ofEAN13: &payload, wanted: types) else { return [] }
            return [ScannedCode(type: type, payload: payload, corners: points, decoder: .lookout,
                                symbologyIdentifier: SymbologyIdentifier.plain(type))]
        }
    }

    /// The widest modules (pixels) an EAN-13 or UPC-A read is asked of its bars' grey levels at.
    /// Bars of about a pixel and a quarter lose their edges to a threshold: the first looks and
    /// the enlarged copies then read some such symbols as other digits that pass the check digit
    /// (3 in 900 pictures of 1.1 to 1.8 px modules, at 1.17 to 1.31 px), where the grey levels
    /// read the symbol right; 1.6 leaves a margin, and larger modules are the threshold's.
    static let checkedModule = 1.6

    /// `read` as its bars' grey levels have it, when it is an EAN-13, UPC-A or ISBN of modules
    /// under `checkedModule` (other reads as they are; `judged` says how). The halves read a
    /// band round the place the read's corners give (the line a scan crossed, or the symbol), at
    /// least a third of its length across. ZBar's corners are an upright box, which makes a leaning
    /// symbol's modules look up to 1.4 times wider: some such reads are not checked.
    static func checked(_ read: ScannedCode, in pixels: PixelBuffer, region: PlaneRegion,
                        wanted types: Set<MetadataObjectType>) -> ScannedCode? {
        guard read.decoder != .lookout, let digits = thirteenDigits(of: read) else { return read }
        let length = length(of: read.corners)
        guard length / 95 < checkedModule, length >= 40 else { return read }
        let box = Rect.enclosing(read.corners)
        let width = max(box.width, length / 3), height = max(box.height, length / 3)
        let left = max(region.x, Int(box.midX - width / 2)), top = max(region.y, Int(box.midY - height / 2))
        let right = min(region.x + region.width, Int((box.midX + width / 2).rounded(.up)))
        let bottom = min(region.y + region.height, Int((box.midY + height / 2).rounded(.up)))
        guard right > left, bottom > top else { return read }
        let halves = halves(in: pixels, region: (x: left, y: top, width: right - left, height: bottom - top), wanted: [.ean13])
        return judged(read, digits: digits, by: halves, wanted: types)
    }

    /// `read` (its symbol's 13 `digits`) judged by the halves' reads (as EAN-13): the read itself
    /// when no half reads its symbol otherwise; the halves' read when both read other digits alike
    /// (a threshold's misread against the model of the blurred bars, which gave no wrong digits on
    /// the small-module sets; the halves are one model's fit, each half accepting it); nil when a
    /// half alone reads other digits, or theirs are not of a wanted type.
    static func judged(_ read: ScannedCode, digits: [UInt8], by halves: [[ScannedCode]],
                       wanted types: Set<MetadataObjectType>) -> ScannedCode? {
        var probe = read
        (probe.type, probe.payload) = (.ean13, digits)
        let others = halves.map { $0.filter { $0.isSameSymbol(as: probe) && $0.payload != digits } }
        if others.allSatisfy(\.isEmpty) { return read }
        guard others.count == 2, var agreed = others[0].first, others[1].contains(where: { $0.payload == agreed.payload }),
              let type = ZXingScanner.type(ofEAN13: &agreed.payload, wanted: types) else { return nil }
        agreed.type = type
        agreed.symbologyIdentifier = SymbologyIdentifier.plain(type)
        return agreed
    }

    /// The halves' read when both read it alike and its modules are under `checkedModule`: it may
    /// stand against a copy's threshold misread of its place (`StillCodeReader.linearPlaces`), as
    /// in `checked`.
    static func agreedOnSmallModules(_ halves: [[ScannedCode]]) -> ScannedCode? {
        guard halves.count == 2, let read = halves[0].first, halves[1].contains(where: { $0.payload == read.payload }),
              length(of: read.corners) / 95 < checkedModule else { return nil }
        return read
    }

    /// The length of the bars a read's four corners give: the longer of its first two sides (a
    /// scan's line, or the symbol's).
    static func length(of corners: [Point]) -> Double {
        guard corners.count == 4 else { return 0 }
        func distance(_ a: Point, _ b: Point) -> Double { ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot() }
        return max(distance(corners[0], corners[1]), distance(corners[1], corners[2]))
    }

    /// The 13 digits of an EAN-13 the read stands for (a UPC-A's with its leading zero, an
    /// ISBN-10's as 978 and its EAN check digit: its GTIN without the first zero), or nil for other types.
    static func thirteenDigits(of read: ScannedCode) -> [UInt8]? {
        guard [.ean13, .isbn13, .isbn10, .upcA].contains(read.type), let gtin = GS1Data.gtin(read.payload, type: read.type)
        else { return nil }
        return Array(gtin.utf8.dropFirst())
    }
}
