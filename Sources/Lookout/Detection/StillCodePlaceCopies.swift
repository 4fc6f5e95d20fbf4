import Foundation
import COpenCV
import CZXing

/// The copies of a place a lane reads (deconvolved, flattened for ZBar, unrolled, toned), each
/// made into the lane's scratch and read there, its reads given in the plane's pixels.
extension StillCodeReader.Lane {
    /// A `CopyMaker` for a copy twice the region's size each way: the region as `prepare` writes it
    /// (into a scratch of the region's size), enlarged by `enlarge` (`lk_enlarge`, or
    /// `lk_enlarge_sharpen` with its sigma), from the scratch's pointer, width, height and stride.
    static func enlarging(_ prepare: @escaping CopyMaker, by enlarge: @escaping CopyMaker) -> CopyMaker {
        { origin, width, height, stride, out in
            var prepared = [UInt8](repeating: 0, count: Int(width) * Int(height))
            return prepared.withUnsafeMutableBufferPointer { prepared in
                guard prepare(origin, width, height, stride, prepared.baseAddress!) == 0 else { return -1 }
                return enlarge(prepared.baseAddress!, width, height, width, out)
            }
        }
    }

    /// The codes of `types` zxing-cpp reads in the region deconvolved by `blur` with the Wiener
    /// filter's `noise`, then enlarged twice when `enlarged` (`lk_enlarge`: the deconvolved copy
    /// is sharp already), in the plane's pixels. A shake is estimated from the region itself.
    mutating func readDeconvolved(_ pixels: PixelBuffer, region: PlaneRegion, blur: StillCodeReader.Blur, noise: Double,
                                  enlarged: Bool = false,
                                  types: Set<MetadataObjectType> = StillCodeReader.vouchedInCopies) -> [ScannedCode] {
        let deconvolve: CopyMaker
        switch blur {
        case .focus(let sigma):
            deconvolve = { lk_deconvolve($0, $1, $2, $3, sigma, noise, $4) }
        case .shake:
            deconvolve = { origin, width, height, stride, out in
                var (length, angle) = (0.0, 0.0)
                guard lk_shake_estimate(origin, width, height, stride, &length, &angle) == 0 else { return -1 }
                return lk_deconvolve_shake(origin, width, height, stride, length, angle, noise, out)
            }
        }
        return readCopy(of: pixels, region: region, scale: enlarged ? 2 : 1, efforts: [.thorough],
                        made: enlarged ? Self.enlarging(deconvolve, by: lk_enlarge) : deconvolve)
            .joined().filter { types.contains($0.type) }
    }

    /// The symbols ZBar reads on enough scan lines (`ScannedCode.confidentScanLines`) in the
    /// region flattened (`PlaceTone.flattened`) and enlarged twice, as the second pass's enlarged
    /// copy is, in the plane's pixels: a second decoder on the copy that lays a label's light
    /// flat. zxing-cpp alone reads a light label on a dark can there, and one copy's read does
    /// not stand; at the place's own size ZBar reads it on 9 or 10 scan lines, enlarged on 16 to 20.
    mutating func readFlattened(by zbar: BarcodeScanner, of pixels: PixelBuffer, region: PlaneRegion) -> [ScannedCode] {
        let (width, height) = (region.width * 2, region.height * 2)
        let flattened = Self.enlarging(Self.maker(tone: .flattened), by: lk_enlarge)
        guard makeCopy(of: pixels, region: region, size: (width, height),
                       made: { flattened($0, Int32(region.width), Int32(region.height), Int32(pixels.bytesPerRow), $1) == 0 })
        else { return [] }
        return copy.withUnsafeBytes {
            zbar.scan(plane: $0.baseAddress!, width: width, height: height, region: (0, 0, width, height), scale: 0.5)
        }.filter { !$0.needsConfirmation && StillCodeReader.vouchedInCopies.contains($0.type) }.map { $0.offset(x: region.x, y: region.y) }
    }

    /// The codes of `types` zxing-cpp reads in the region unrolled (`CylinderView.views`, in turn),
    /// in the plane's pixels. A read stands when a second view reads the same bytes there and no
    /// view other ones: a view that bends a symbol the wrong way can sample a grid of its own
    /// inside it, and 20 views of a place are 20 chances for Reed-Solomon to pass one (a version 1
    /// code inside a version 5 one under glare, on the benchmark photographs). The second view is
    /// looked for first beside the one that read (`CylinderView.neighbours`): a wrapped code is
    /// often read in one of the 20 and, bent a little, in a view beside it (a camera above or below
    /// a label round a can bows its rows).
    mutating func readUnrolled(_ pixels: PixelBuffer, region: PlaneRegion, types: Set<MetadataObjectType>, bent: Bool = false) -> [ScannedCode] {
        readUnrolled(pixels, region: region, types: types, views: CylinderView.views(width: region.width, height: region.height, bent: bent))
    }

    /// The same, in `views` in turn, until `deadline` (checked between views: a ladder is long).
    mutating func readUnrolled(_ pixels: PixelBuffer, region: PlaneRegion, types: Set<MetadataObjectType>, views: [CylinderView],
                               deadline: Int64 = .max) -> [ScannedCode] {
        var seen = [ScannedCode]()
        var tried = [CylinderView]()
        // The codes view reads that stand with those seen: nil when it read other bytes there, and
        // nothing when it was read already (a neighbour of two views), so no view vouches for itself.
        // A neighbour samples much as its view does, so what it vouches for must also fill its place.
        func vouched(by view: CylinderView, neighbour: Bool = false) -> [ScannedCode]? {
            guard !tried.contains(where: { $0.isSame(as: view) }) else { return [] }
            tried.append(view)
            let codes = readUnrolled(pixels, region: region, view: view, types: types)
            if codes.contains(where: { read in seen.contains { $0.isSameSymbol(as: read) && $0.payload != read.payload } }) { return nil }
            let agreeing = codes.filter { read in
                seen.contains { $0.isSameSymbol(as: read) && $0.payload == read.payload } && (!neighbour || Self.fills(region, read))
            }
            seen += codes
            return agreeing
        }
        for view in views where MonotonicClock.nanoseconds() < deadline {
            let before = seen.count
            guard let agreeing = vouched(by: view) else { return [] }
            if !agreeing.isEmpty { return agreeing }
            if seen.count == before { continue }
            for neighbour in view.neighbours {
                guard let agreeing = vouched(by: neighbour, neighbour: true) else { return [] }
                if !agreeing.isEmpty { return agreeing }
            }
        }
        return []
    }

    /// True when a read's box covers at least a tenth of the region it was read in. A code read
    /// unrolled covers 40 to 60 % of its place (`qr-curved.png`, `qr-curved-bowed.png`); the grid
    /// one view sampled inside a code under glare ("2356", `qr-glare-unrolled.png`) 3.5 %.
    static func fills(_ region: PlaneRegion, _ read: ScannedCode) -> Bool {
        let box = Rect.enclosing(read.corners)
        return box.width * box.height * 10 >= Double(region.width * region.height)
    }

    /// The codes of `types` zxing-cpp reads in the region unrolled as `view` sees it, without
    /// trying harder (the same codes on the benchmark photographs, for 8 s of CPU less).
    mutating func readUnrolled(_ pixels: PixelBuffer, region: PlaneRegion, view: CylinderView,
                               types: Set<MetadataObjectType>) -> [ScannedCode] {
        readCopy(of: pixels, region: region, size: view.copySize(width: region.width, height: region.height), efforts: [[]],
                 made: { view.unroll($0, width: region.width, height: region.height, bytesPerRow: pixels.bytesPerRow, into: $1) },
                 placePoint: { view.placePoint($0, width: region.width, height: region.height) })
            .joined().filter { types.contains($0.type) }
    }

    /// The codes zxing-cpp reads in the region with its tones set right (`tone`), then enlarged twice
    /// and sharpened as `Look.enlarged` is when `enlarged`, in the plane's pixels.
    mutating func readToned(_ pixels: PixelBuffer, region: PlaneRegion, tone: StillCodeReader.PlaceTone, enlarged: Bool = true) -> [ScannedCode] {
        let toned = Self.maker(tone: tone)
        return Array(readCopy(of: pixels, region: region, scale: enlarged ? 2 : 1, efforts: [.thorough],
                              made: enlarged ? Self.enlarging(toned, by: { lk_enlarge_sharpen($0, $1, $2, $3, 2, $4) }) : toned).joined())
    }

    /// `tone` as a `CopyMaker`.
    static func maker(tone: StillCodeReader.PlaceTone) -> CopyMaker {
        { tone.apply($0, width: Int($1), height: Int($2), bytesPerRow: Int($3), into: $4) ? 0 : -1 }
    }
}
