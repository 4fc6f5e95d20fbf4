import Foundation
import COpenCV
import CZXing

/// A still's codes read in their place, where the picture looks like a symbol that no read
/// covers: the first looks read the whole picture, where small modules blur into each other and
/// a row's scan crosses a leaning symbol's bars only in part (docs/accuracy.md has what each adds).
extension StillCodeReader {
    /// The places of EAN and UPC symbols read, densest first: every symbol `linearPlaces` reads
    /// on the development corpus and the code photographs lies in the first 4; 12 read none more
    /// for 11 % more CPU a picture (352 against 316 ms).
    static let linearPlaceLimit = 4

    /// What a place of rows of bars is read in besides itself, each also turned upright by its
    /// edges' lean when it gives nothing: sharpened at sigma 1, and enlarged twice and sharpened
    /// at sigma 2 and at sigma 3 of its pixels (modules of 1.5 px leaning by 38 degrees are read
    /// only enlarged). A symbol of the copies stands when two of them read it alike
    /// (`vouching`); read by one alone, it is confirmed as a weak read is.
    static let linearPlaceCopies: [(look: Look, sigma: Double)] = [(.sharpened, 1), (.enlarged, 2), (.enlarged, 3)]

    /// The reads of `linearPlaceCopies` gathered by look, any later copies as they are: the copies
    /// of one look differ in their sharpening only, and can misread alike (enlarged at sigma 2 and
    /// 3, an EAN-13 of 1.2 px modules out of focus gave the same wrong digits in both). A read
    /// they alone vouch for is asked of the bars' grey levels as well (`linearPlaces`).
    static func byLook(_ copies: [[ScannedCode]]) -> [[ScannedCode]] {
        var looks = [Look?](), gathered = [[ScannedCode]]()
        for (index, reads) in copies.enumerated() {
            let look = index < linearPlaceCopies.count ? linearPlaceCopies[index].look : nil
            if let look, let earlier = looks.firstIndex(of: look) {
                gathered[earlier] += reads
            } else {
                looks.append(look)
                gathered.append(reads)
            }
        }
        return gathered
    }

    /// The blur a deconvolution undoes: a camera out of focus, a Gaussian of `sigma` pixels
    /// (`lk_deconvolve`); or a camera shaken, the straight motion blur the place's cepstrum shows
    /// (`lk_shake_estimate`, `lk_deconvolve_shake`), which smears one way only, by a module or more.
    enum Blur: Equatable {
        case focus(sigma: Double)
        case shake
    }

    /// A rung of a deconvolution ladder: the blur undone, the Wiener filter's noise-to-signal
    /// ratio, and whether the copy is then enlarged twice.
    typealias DeconvolutionRung = (blur: Blur, noise: Double, enlarged: Bool)

    /// The Gaussian blurs (sigma, in pixels) a place that gave nothing else is deconvolved by, with
    /// the Wiener filter's noise-to-signal ratio (`lk_deconvolve`), and whether the deconvolved
    /// copy is then enlarged twice: a camera out of focus blurs bars by most of a module, which no
    /// sharpening undoes. The blur is not known, so a ladder; neighbouring rungs read the same
    /// symbol, and single rungs gave wrong texts. Modules of 1.5 to 2 px blurred by a pixel come
    /// apart deconvolved but are read only once enlarged as well; such a symbol's place is at
    /// most `enlargedDeconvolutionSide` on its longer side.
    static let deconvolutions: [DeconvolutionRung] = [
        (.focus(sigma: 1.5), 0.01, false), (.focus(sigma: 2), 0.01, false), (.focus(sigma: 2.5), 0.01, false),
        (.focus(sigma: 3), 0.02, false), (.focus(sigma: 1), 0.01, true), (.focus(sigma: 1.25), 0.01, true),
    ]

    /// The longest side of a place deconvolved and enlarged (`deconvolutions`): 95 modules of
    /// 2 px and the quiet zones, leaning, with room; a larger place holds larger modules, and
    /// its copies cost four times its pixels each. Matrix and QR places (`matrixDeconvolutions`,
    /// `qrDeconvolutions`) are bounded by it too (QR places before they are grown): modules
    /// blurred or small enough to need it make small symbols.
    static let enlargedDeconvolutionSide = 400

    /// EAN and UPC symbols where the region has rows of bars (`LK_ZX_PLACES_ROWS`), each place
    /// grown by its quiet zone. A place read as it is stands as the picture's read does: the same
    /// pixels, with a row's threshold no longer set by the rest of the picture.
    func linearPlaces(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], deadline: Int64) -> [ScannedCode] {
        readPlaces(LK_ZX_PLACES_ROWS, of: pixels, region: region, known: known, limit: Self.linearPlaceLimit, deadline: deadline,
                   shape: { Self.grown($0, within: region) }) { lane, place, before in
            var codes = [ScannedCode]()
            func isNew(_ read: ScannedCode) -> Bool {
                Self.vouchedInCopies.contains(read.type) && !(before + codes).contains { $0.isSameSymbol(as: read) }
            }
            let asItIs = lk_zx_region(x: Int32(place.x), y: Int32(place.y), width: Int32(place.width), height: Int32(place.height), shrink: 1)
            codes += lane.zxing.scan(plane: pixels.baseAddress, width: pixels.width, height: pixels.height,
                                     bytesPerRow: pixels.bytesPerRow, regions: [asItIs], budget: 0).filter(isNew)
            var copies = Self.linearPlaceCopies.map { copy in
                lane.readCopy(copy.look, of: pixels, region: place, sigma: copy.sigma, also: .turned)
                    .flatMap { $0 }.filter { Self.vouchedInCopies.contains($0.type) }
            }
            func vouched(by copies: [[ScannedCode]]) {
                for read in copies.joined() where isNew(read) {
                    switch Self.vouching(for: read, by: copies) {
                    case .contradicted: continue
                    case .once: codes.append(read.toBeConfirmed())
                    case .twice: codes.append(read)
                    }
                }
            }
            // The bars' grey levels, each half a copy (of the reads `keep` keeps). Modules near a
            // pixel: the halves alike stand against the threshold misreads of one look (as in
            // `EAN13ProfileReader.checked`), not against copies of several looks reading otherwise.
            func askBars(keeping keep: (ScannedCode) -> Bool) {
                let halves = EAN13ProfileReader.halves(in: pixels, region: place, wanted: types).map { $0.filter(keep) }
                if let agreed = EAN13ProfileReader.agreedOnSmallModules(halves), isNew(agreed),
                   Self.byLook(copies).filter({ $0.contains { $0.isSameSymbol(as: agreed) && $0.payload != agreed.payload } }).count <= 1 {
                    codes.append(agreed)
                } else {
                    copies += halves
                }
            }
            // When nothing stands yet: flattened (a light label on a dark can sets the rows'
            // thresholds where its bars are lost) and deconvolved, and then, when nothing stands
            // still, an EAN-13 read from the bars' grey levels, each half of them a copy; what a
            // copy read alone may then be vouched for by another, or by ZBar reading the flattened
            // copy alike.
            if codes.isEmpty, !copies.joined().contains(where: { Self.vouching(for: $0, by: copies) == .twice }) {
                copies.append(lane.readCopy(.flattened, of: pixels, region: place)
                    .joined().filter { Self.vouchedInCopies.contains($0.type) })
                let small = max(place.width, place.height) <= Self.enlargedDeconvolutionSide
                copies += Self.deconvolutions.filter { !$0.enlarged || small }.map {
                    lane.readDeconvolved(pixels, region: place, blur: $0.blur, noise: $0.noise, enlarged: $0.enlarged)
                }
                if !copies.joined().contains(where: { isNew($0) && Self.vouching(for: $0, by: copies) == .twice }) {
                    askBars { _ in true }
                }
                if let placeZBar, copies.joined().contains(where: { isNew($0) && Self.vouching(for: $0, by: copies) == .once }) {
                    copies.append(lane.readFlattened(by: placeZBar, of: pixels, region: place))
                }
            } else if codes.isEmpty {
                // Vouched for by the copies of one look alone: the bars' grey levels, where they
                // read the same symbol, vouch for it again, contradict it, or (both halves alike, of
                // small modules) stand for their own digits; they add no other symbol.
                let looks = Self.byLook(copies)
                let byOneLook = copies.joined().filter {
                    isNew($0) && Self.vouching(for: $0, by: copies) == .twice && Self.vouching(for: $0, by: looks) == .once
                }
                if !byOneLook.isEmpty {
                    askBars { read in byOneLook.contains { $0.isSameSymbol(as: read) } }
                }
            }
            vouched(by: copies)
            return codes
        }
    }

    /// The blurs a place that looks like a QR code and gave nothing enlarged is deconvolved by,
    /// in turn until one reads (`lk_deconvolve`; a QR read stands alone, on its Reed-Solomon
    /// check), and whether the deconvolved copy is then enlarged twice. On the benchmark
    /// photographs the first two read 3 codes more (a third at 2.5 px, and places of up to 1 Mpx,
    /// none more); the enlarged two 8 more, on places found of at most `enlargedDeconvolutionSide`
    /// a side, then grown by their quiet zone (so up to 480 px): modules of about 2.2 px soft by
    /// a pixel come apart deconvolved but are read only enlarged, as EAN modules of 1.5 to 2 px.
    static let qrDeconvolutions: [DeconvolutionRung] = [
        (.focus(sigma: 1), 0.03, false), (.focus(sigma: 1.5), 0.01, false), (.focus(sigma: 1), 0.01, true),
        (.focus(sigma: 1.5), 0.01, true), (.shake, 0.01, false),
    ]

    /// The most pixels a place may have to be deconvolved for QR codes: a quarter of a megapixel
    /// (the codes it reads are smaller), so that the step costs a few per cent of the benchmark's
    /// CPU (105 and 110 s in two runs, 104 s without it).
    static let qrDeconvolvedPlacePixels = 250_000

    /// QR codes of modules that blurred into each other at the picture's scale, where the picture
    /// looks like a matrix symbol (`LK_ZX_PLACES_MATRIX`), enlarged twice and sharpened as
    /// `Look.enlarged` reads a whole picture of up to `enlargedPixels`; a place that gives nothing
    /// so, toned first (`PlaceTone`); a small place that still gives nothing, deconvolved, and
    /// then also enlarged (`qrDeconvolutions`); and then unrolled as a label round a can (`CylinderView`).
    func enlargedPlaces(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], deadline: Int64) -> [ScannedCode] {
        readPlaces(LK_ZX_PLACES_MATRIX, of: pixels, region: region, known: known, limit: 12, deadline: deadline,
                   shape: { (x: region.x + Int($0.x), y: region.y + Int($0.y), width: Int($0.width), height: Int($0.height)) }) { lane, place, before in
            var codes = before
            for reads in lane.readCopy(.enlarged, of: pixels, region: place) { codes.addNewSymbols(reads.filter { $0.type == .qr }) }
            for tone in PlaceTone.allCases where codes.count == before.count {
                codes.addNewSymbols(lane.readToned(pixels, region: place, tone: tone).filter { $0.type == .qr })
            }
            let small = max(place.width, place.height) <= Self.enlargedDeconvolutionSide
            if place.width * place.height <= Self.qrDeconvolvedPlacePixels {
                for rung in Self.qrDeconvolutions
                where codes.count == before.count && (!rung.enlarged || small) && MonotonicClock.nanoseconds() < deadline {
                    let read = rung.enlarged || rung.blur == .shake ? Self.grown(placeInPlane: place, within: region) : place
                    codes.addNewSymbols(lane.readDeconvolved(pixels, region: read, blur: rung.blur, noise: rung.noise,
                                                             enlarged: rung.enlarged, types: [.qr]))
                }
            }
            if codes.count == before.count { codes.addNewSymbols(lane.readUnrolled(pixels, region: place, types: [.qr])) }
            return Array(codes[before.count...])
        }
    }

    /// The rungs an Aztec or DataMatrix place is deconvolved by, in this order until one reads
    /// (`deconvolutions` says why a ladder): modules of about 2 px smeared by a pixel are read at
    /// sigma 1 or 1.5 and only enlarged twice; a defocused symbol of 3 to 4 px modules at 1.5 to
    /// 2.5, as it is or enlarged. Which rungs read a symbol shifts with the place's bounds by a
    /// few pixels, so the ladder is wide; it stops at the first read.
    static let matrixDeconvolutions: [DeconvolutionRung] = [
        (.focus(sigma: 1), 0.01, true), (.focus(sigma: 1.5), 0.01, true), (.focus(sigma: 2), 0.01, false),
        (.focus(sigma: 1.5), 0.01, false), (.focus(sigma: 2), 0.01, true), (.focus(sigma: 2.5), 0.01, false),
        (.shake, 0.01, false),
    ]

    /// Aztec and DataMatrix symbols whose modules blurred into each other, or are too small for
    /// zxing-cpp's detector at the picture's scale, where the region looks like a matrix symbol
    /// (`LK_ZX_PLACES_MATRIX`) that no code read covers: each place grown by a tenth each way,
    /// when then at most `enlargedDeconvolutionSide` a side (symbols of such modules are smaller),
    /// deconvolved (`matrixDeconvolutions`), until `deadline` (checked between rungs). Large
    /// cells as well: a defocused symbol's transitions show in them when the small cells see
    /// none (code-bench/aztec/022). Their Reed-Solomon codewords and mode message stand for
    /// them as in the picture's read.
    func deconvolvedMatrixPlaces(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], types: Set<MetadataObjectType>,
                                 deadline: Int64) -> [ScannedCode] {
        readPlaces(LK_ZX_PLACES_MATRIX, of: pixels, region: region, known: known, limit: 12, deadline: deadline,
                   cells: [.small, .medium, .large], longestSide: Self.enlargedDeconvolutionSide,
                   shape: { Self.grown($0, within: region) }) { lane, place, _ in
            for rung in Self.matrixDeconvolutions where MonotonicClock.nanoseconds() < deadline {
                let reads = lane.readDeconvolved(pixels, region: place, blur: rung.blur, noise: rung.noise, enlarged: rung.enlarged,
                                                 types: types)
                if !reads.isEmpty { return reads }
            }
            return []
        }
    }

    /// QR, Aztec and DataMatrix symbols on a label round a can, where the picture looks like a
    /// matrix symbol of large modules (`ZXingFrameReader.PlaceCell.large`) that no code read
    /// covers: the place unrolled (`CylinderView`). Smaller places are unrolled for QR codes in
    /// `enlargedPlaces`.
    func unrolledPlaces(_ pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], types: Set<MetadataObjectType>,
                        deadline: Int64) -> [ScannedCode] {
        readPlaces(LK_ZX_PLACES_MATRIX, of: pixels, region: region, known: known, limit: 12, deadline: deadline, cells: [.large],
                   shape: { (x: region.x + Int($0.x), y: region.y + Int($0.y), width: Int($0.width), height: Int($0.height)) }) { lane, place, _ in
            let codes = lane.readUnrolled(pixels, region: place, types: types)
            guard codes.isEmpty, let symbol = Self.tightened(place, in: pixels) else { return codes }
            return lane.readUnrolled(pixels, region: symbol, types: types, bent: true)
        }
    }

    /// QR, Aztec and DataMatrix symbols zxing-cpp found but did not read (`UndecodedSymbolReader`):
    /// on a label round a can, zxing-cpp samples a grid the symbol bends away from. Each is
    /// unrolled in its own place, where no code read covers it, in the finer ladder of views its
    /// known place affords (`CylinderView.ladder`); a read stands when a second view gives it.
    func unrolledSymbols(_ pixels: PixelBuffer, places: [PlaneRegion], known: [ScannedCode], types: Set<MetadataObjectType>,
                         deadline: Int64) -> [ScannedCode] {
        var covered = known.map { Rect.enclosing($0.corners) }
        var codes = [ScannedCode]()
        lanes[0].withLock { lane in
            for place in places where place.width >= 16 && place.height >= 16 && MonotonicClock.nanoseconds() < deadline {
                let centre = Point(x: Double(place.x) + Double(place.width) / 2, y: Double(place.y) + Double(place.height) / 2)
                guard !covered.contains(where: { $0.contains(centre) }) else { continue }
                let read = lane.readUnrolled(pixels, region: place, types: types,
                                             views: CylinderView.ladder(width: place.width, height: place.height), deadline: deadline)
                codes += read
                covered += read.map { Rect.enclosing($0.corners) }
            }
        }
        return codes
    }

    /// The symbol in a place of large cells, when it is much smaller than the place: the largest
    /// place of medium cells within it (`lk_zx_locate`), grown by a tenth. A view's radius and axis
    /// are shares of the place it unrolls, and a place of large cells can be three times its
    /// symbol's width (code-bench/aztec/017: 263 px round a symbol of 72). Nil when no such place
    /// is found, or when it fills more than half of the place.
    static func tightened(_ place: PlaneRegion, in pixels: PixelBuffer) -> PlaneRegion? {
        let origin = pixels.baseAddress + place.y * pixels.bytesPerRow + place.x
        guard let symbol = ZXingFrameReader.places(LK_ZX_PLACES_MATRIX, in: origin, width: place.width, height: place.height,
                                                   bytesPerRow: pixels.bytesPerRow, cells: [.medium])
            .max(by: { $0.width * $0.height < $1.width * $1.height })
        else { return nil }
        let tight = grown(symbol, within: place)
        return tight.width * tight.height * 2 <= place.width * place.height ? tight : nil
    }

    /// The codes `read` finds in the region's places of `kind` (`lk_zx_locate`, densest first), each
    /// made a region of the plane by `shape`; a place is skipped, and not counted, when larger than
    /// `enlargedPlacePixels` or than `longestSide` either way, or when its centre lies in a code
    /// of `known` or read in an earlier place. `read` gets the first lane, the place and the codes
    /// the places gave so far. At most `limit` places are read, until `deadline`.
    private func readPlaces(_ kind: Int, of pixels: PixelBuffer, region: PlaneRegion, known: [ScannedCode], limit: Int,
                            deadline: Int64, cells: [ZXingFrameReader.PlaceCell] = [.small, .medium], longestSide: Int = .max,
                            shape: (lk_zx_region) -> PlaneRegion,
                            read: (inout Lane, PlaneRegion, [ScannedCode]) -> [ScannedCode]) -> [ScannedCode] {
        let origin = pixels.baseAddress + region.y * pixels.bytesPerRow + region.x
        let places = ZXingFrameReader.places(kind, in: origin, width: region.width, height: region.height, bytesPerRow: pixels.bytesPerRow,
                                             cells: cells)
        var covered = known.map { Rect.enclosing($0.corners) }
        var codes = [ScannedCode]()
        var tried = 0
        lanes[0].withLock { lane in
            for place in places.map(shape) where tried < limit && MonotonicClock.nanoseconds() < deadline {
                let centre = Point(x: Double(place.x) + Double(place.width) / 2, y: Double(place.y) + Double(place.height) / 2)
                if place.width * place.height > Int(Self.enlargedPlacePixels) || max(place.width, place.height) > longestSide
                    || covered.contains(where: { $0.contains(centre) }) { continue }
                tried += 1
                let found = read(&lane, place, codes)
                codes += found
                covered += found.map { Rect.enclosing($0.corners) }
            }
        }
        return codes
    }

    /// A place (in the plane's pixels) grown by a tenth of its size each way, within the region.
    static func grown(placeInPlane place: PlaneRegion, within region: PlaneRegion) -> PlaneRegion {
        grown(lk_zx_region(x: Int32(place.x - region.x), y: Int32(place.y - region.y), width: Int32(place.width),
                           height: Int32(place.height), shrink: 1), within: region)
    }

    /// A place (in the region's pixels) grown by a tenth of its size each way, within the region,
    /// in the plane's pixels: an EAN symbol's quiet zone is 7 % of its width each side.
    static func grown(_ place: lk_zx_region, within region: PlaneRegion) -> PlaneRegion {
        let dx = Int(place.width) / 10, dy = Int(place.height) / 10
        let left = max(0, Int(place.x) - dx), top = max(0, Int(place.y) - dy)
        let right = min(region.width, Int(place.x + place.width) + dx), bottom = min(region.height, Int(place.y + place.height) + dy)
        return (x: region.x + left, y: region.y + top, width: right - left, height: bottom - top)
    }
}
