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
}
