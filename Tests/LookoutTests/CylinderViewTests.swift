import Foundation
import Testing
@testable import Lookout

/// Codes on labels wrapped round a can, read unrolled (`CylinderView`).
@Suite("codes round a can")
struct CylinderViewTests {
    /// Stripes printed at even steps round a cylinder come out at even steps once unrolled, where
    /// the picture shows them narrowing towards the sides; and a point of the copy goes back to
    /// where the stripe is in the picture. Both ways round the axis.
    @Test(arguments: [true, false])
    func unrollingEvensOutStripesACylinderNarrows(axisIsVertical: Bool) throws {
        let (across, along) = (300, 40)
        let view = CylinderView(axisIsVertical: axisIsVertical, centre: 140, radius: 180)
        // The picture: across the axis, pixel p shows arc length s = r·asin((p - centre) / r).
        let period = 12.0
        func shade(_ p: Int) -> UInt8 {
            let s = view.radius * asin((Double(p) - view.centre) / view.radius)
            return (s / period).rounded(.down).truncatingRemainder(dividingBy: 2) == 0 ? 30 : 220
        }
        let (width, height) = axisIsVertical ? (across, along) : (along, across)
        var picture = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { picture[y * width + x] = shade(axisIsVertical ? x : y) } }

        let (copy, size) = Self.unrolled(picture, width: width, height: height, by: view)
        let samples = axisIsVertical ? size.width : size.height
        #expect(samples > across, "the arc is longer than its chord")
        let line = (0..<samples).map { index in copy[axisIsVertical ? (along / 2) * size.width + index : index * size.width + along / 2] }
        // Where the shade changes, in samples: every stripe as wide as the others, within a sample.
        let edges = (1..<samples).filter { (line[$0 - 1] < 125) != (line[$0] < 125) }
        let widths = zip(edges, edges.dropFirst()).map { $1 - $0 }
        #expect(widths.count >= 20, "\(widths)")
        #expect(widths.allSatisfy { abs(Double($0) - period) <= 1 }, "stripes \(widths) wide, not \(period)")
        // In the picture, the same stripes narrow towards the side the axis is far from.
        let pictureLine = (0..<across).map(shade)
        let pictureEdges = (1..<across).filter { (pictureLine[$0 - 1] < 125) != (pictureLine[$0] < 125) }
        let pictureWidths = zip(pictureEdges, pictureEdges.dropFirst()).map { $1 - $0 }
        #expect(try #require(pictureWidths.max()) - (try #require(pictureWidths.min())) > 3,
                "the picture's stripes \(pictureWidths) do not narrow: the test no longer tests unrolling")

        // An edge of the copy goes back onto the same edge of the picture.
        for edge in edges {
            let point = axisIsVertical ? Point(x: Double(edge), y: 5) : Point(x: 5, y: Double(edge))
            let placed = view.placePoint(point, width: width, height: height)
            let position = Int((axisIsVertical ? placed.x : placed.y).rounded())
            #expect(pictureEdges.contains { abs($0 - position) <= 1 }, "copy edge \(edge) went to \(position), not an edge of \(pictureEdges)")
            #expect((axisIsVertical ? placed.y : placed.x) == 5, "along the axis nothing moves")
        }
    }

    /// A cylinder narrower than its place is unrolled over its face only: the copy is half the
    /// cylinder's circumference long, and every point of it lies on the cylinder, whatever the
    /// picture shows beside it.
    @Test func aPlaceWiderThanTheCylinderIsUnrolledOverItsFace() {
        let view = CylinderView(axisIsVertical: true, centre: 50, radius: 30)
        let size = view.copySize(width: 100, height: 20)
        #expect(size.height == 20)
        #expect(abs(Double(size.width) - Double.pi * 30) <= 2, "\(size.width) samples for a face of \(Double.pi * 30)")
        let picture = (0..<20).flatMap { _ in (0..<100).map { UInt8($0 < 19 || $0 > 81 ? 0 : 200) } }
        let (copy, _) = Self.unrolled(picture, width: 100, height: 20, by: view)
        #expect(copy.allSatisfy { $0 == 200 }, "the copy holds what lies beside the cylinder")
        let ends = [0, size.width - 1].map { view.placePoint(Point(x: Double($0), y: 0), width: 100, height: 20).x }
        #expect(abs(ends[0] - 20) < 0.5 && abs(ends[1] - 80) < 0.5, "the copy's ends go back to \(ends), not the cylinder's sides")
    }

    /// A camera above or below a can sees a label's rows bow, farther from the middle towards the
    /// cylinder's sides; a bent view levels them, and a point of its copy goes back onto the bow.
    /// Both ways round the axis.
    @Test(arguments: [true, false])
    func aBentViewLevelsRowsTheCameraSeesBowed(axisIsVertical: Bool) {
        let (across, along, period) = (300, 120, 12.0)
        let view = CylinderView(axisIsVertical: axisIsVertical, centre: 140, radius: 180, bend: 0.2)
        let flat = CylinderView(axisIsVertical: axisIsVertical, centre: 140, radius: 180)
        // Stripes across the axis, each bowed by bend · along · (1 - cos θ) at angle θ.
        func shade(across p: Int, along q: Int) -> UInt8 {
            let theta = asin((Double(p) - view.centre) / view.radius)
            let bowed = Double(q) - view.bend * Double(along) * (1 - cos(theta))
            return (bowed / period).rounded(.down).truncatingRemainder(dividingBy: 2) == 0 ? 30 : 220
        }
        let (width, height) = axisIsVertical ? (across, along) : (along, across)
        var picture = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { picture[y * width + x] = axisIsVertical ? shade(across: x, along: y) : shade(across: y, along: x) } }

        // In a copy, the stripes' middles: each one shade all across, or not.
        func levelMiddles(_ view: CylinderView) -> [Bool] {
            let (copy, size) = Self.unrolled(picture, width: width, height: height, by: view)
            let samples = axisIsVertical ? size.width : size.height
            return stride(from: period * 2.5, to: Double(along) - period, by: period).map { middle in
                let line = (0..<samples).map { index in
                    axisIsVertical ? copy[Int(middle) * size.width + index] : copy[index * size.width + Int(middle)]
                }
                return line.allSatisfy { $0 < 125 } || line.allSatisfy { $0 >= 125 }
            }
        }
        let bent = levelMiddles(view)
        #expect(bent.count >= 6 && bent.allSatisfy { $0 }, "the bent view leaves rows bowed: \(bent)")
        #expect(levelMiddles(flat).contains(false), "the rows do not bow: the test no longer tests bending")

        // A point of the copy goes back onto its stripe, where the bow put it.
        let size = view.copySize(width: width, height: height)
        let samples = axisIsVertical ? size.width : size.height
        for index in stride(from: 0, to: samples, by: 7) {
            for middle in stride(from: period * 2.5, to: Double(along) - period, by: period) {
                let point = axisIsVertical ? Point(x: Double(index), y: middle) : Point(x: middle, y: Double(index))
                let placed = view.placePoint(point, width: width, height: height)
                let (p, q) = axisIsVertical ? (placed.x, placed.y) : (placed.y, placed.x)
                let expected: UInt8 = (middle / period).rounded(.down).truncatingRemainder(dividingBy: 2) == 0 ? 30 : 220
                #expect(shade(across: Int(p.rounded()), along: Int(q.rounded())) == expected, "copy \(point) went to \(placed)")
            }
        }
    }

    /// A code on a label wrapped round a can (Tests/Fixtures/qr-curved.png: 6.9 px modules, the
    /// label bent by 30 degrees or more across the code): no first look reads it, nor the picture
    /// enlarged; unrolled it is read, where the code is, and so scan's places read it within the
    /// budget.
    @Test func aCodeRoundACanIsReadUnrolledWhereItIs() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("qr-curved.png", types: [.qr])
        let text = "8SINW45LBWLZDU7TKLG0W3IYNF0"
        let (enlarged, unrolled) = reader.lanes[0].withLock { lane in
            (lane.readCopy(.enlarged, of: image, region: whole).joined().map { String(decoding: $0.payload, as: UTF8.self) },
             lane.readUnrolled(image, region: whole, types: [.qr]))
        }
        #expect(enlarged.isEmpty, "the enlarged copy reads the code: the test no longer tests unrolling")
        #expect(unrolled.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        // The benchmark's marked corners, in the crop: the read's corners lie on them.
        let marked = [Point(x: 260.6, y: 67.3), Point(x: 311.7, y: 244.8), Point(x: 116.3, y: 300.5), Point(x: 68.9, y: 119.9)]
        for corner in try #require(unrolled.first).corners {
            #expect(marked.contains { ($0.x - corner.x).magnitude < 20 && ($0.y - corner.y).magnitude < 20 },
                    "corner \(corner) is not near a marked one of \(marked)")
        }
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// A code on a label round a can that zxing-cpp finds but cannot decode (Tests/Fixtures/
    /// qr-curved-found.png, from the benchmark photograph qr-bench/curved/011.jpg: version 6, 4.3 px
    /// modules, wrapped by 15 degrees or more). No first look reads it; its own place, enlarged and
    /// made black and white, nor the places of large cells unrolled, nor its place in the 20 views
    /// and their bowed ones; in the ladder of views its known place affords, it is read, where the
    /// code is, once, and so scan reads it.
    @Test func aCodeFoundButNotDecodedIsReadUnrolledInItsOwnPlace() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("qr-curved-found.png", types: [.qr])
        let text = "https://example.com/price/554454?id=d5io8cekntuqlyqcqxt4gvsy07jbu87fkkzjztq6iv8jrb3djpqsfgtlt"
        let undecoded = try #require(UndecodedSymbolReader(types: [.qr]))
        #expect(undecoded.read(image, region: whole, known: [], deadline: .max).isEmpty,
                "its own place reads the code: the test no longer tests unrolling it")
        #expect(undecoded.unread.count == 1, "\(undecoded.unread)")
        let place = try #require(undecoded.unread.first)
        #expect(reader.unrolledPlaces(image, region: whole, known: [], types: [.qr], deadline: .max).isEmpty)
        let twenty = reader.lanes[0].withLock { lane in lane.readUnrolled(image, region: place, types: [.qr], bent: true) }
        #expect(twenty.isEmpty, "the 20 views read it: the test no longer tests the ladder")
        let read = reader.unrolledSymbols(image, places: undecoded.unread, known: [], types: [.qr], deadline: .max)
        #expect(read.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
        // The benchmark's marked corners, in the crop: the read lies on the code.
        let box = Rect.enclosing(try #require(read.first).corners)
        #expect(abs(box.midX - 264) < 20 && abs(box.midY - 208) < 20, "\(box)")
        // A place a code read covers is not unrolled again.
        #expect(reader.unrolledSymbols(image, places: undecoded.unread, known: read, types: [.qr], deadline: .max).isEmpty)
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// An Aztec symbol on a label round a can, seen from above (Tests/Fixtures/aztec-curved.png,
    /// from code-bench/aztec/017.jpg: 2.8 px modules, the label wrapped by 45 degrees or more).
    /// In that photograph the place of large cells round it (here at 103, 92) is 263 px wide for
    /// a symbol of 72: unrolled as it is, it gives nothing. Its symbol's own place, bent, reads the
    /// exact text; not bent, nothing.
    @Test func aWrappedAztecSymbolIsReadBentInItsOwnPlace() throws {
        let (image, _, reader) = try LinearPlacesTests.unreadByFirstLooks("aztec-curved.png", types: [.aztec])
        let place = (x: 103, y: 92, width: 263, height: 224)
        let symbol = try #require(StillCodeReader.tightened(place, in: image))
        #expect(symbol.width * symbol.height * 2 <= place.width * place.height && symbol.x > place.x && symbol.y > place.y, "\(symbol)")
        let (whole, flat, bent) = reader.lanes[0].withLock { lane in
            (lane.readUnrolled(image, region: place, types: [.aztec]), lane.readUnrolled(image, region: symbol, types: [.aztec]),
             lane.readUnrolled(image, region: symbol, types: [.aztec], bent: true))
        }
        #expect(whole.isEmpty && flat.isEmpty, "read without bending or in the large place: the test no longer tests them")
        #expect(bent.map { String(decoding: $0.payload, as: UTF8.self) } == ["event order seat seat ticket pass entry #472132"])
        #expect(bent.map(\.type) == [.aztec])
        // The read lies on the symbol (its marked corners' middle, 265 and 233).
        let box = Rect.enclosing(bent.first?.corners ?? [])
        #expect(abs(box.midX - 265) < 20 && abs(box.midY - 233) < 20, "\(box)")
        // A place that is its symbol's own is not tightened.
        #expect(StillCodeReader.tightened(symbol, in: image) == nil)
    }

    /// A code on a can seen from above (Tests/Fixtures/qr-curved-bowed.png, from the benchmark
    /// photograph qr-bench/curved/015.jpg: 4.4 px modules, wrapped by 45 degrees or more): one of
    /// the 20 views reads it, and no other of them; the same view bowed a little reads it again,
    /// so the read stands.
    @Test func aReadOfOneViewIsVouchedForByThatViewBowed() throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks("qr-curved-bowed.png", types: [.qr])
        let text = "seat gate event, ch"
        let views = CylinderView.views(width: image.width, height: image.height)
        let (reading, neighbours, vouched) = reader.lanes[0].withLock { lane in
            let reading = views.filter { view in
                lane.readUnrolled(image, region: whole, view: view, types: [.qr]).map { String(decoding: $0.payload, as: UTF8.self) } == [text]
            }
            let neighbours = reading.first.map { view in
                view.neighbours.map { lane.readUnrolled(image, region: whole, view: $0, types: [.qr]).map { String(decoding: $0.payload, as: UTF8.self) } }
            } ?? []
            return (reading, neighbours, lane.readUnrolled(image, region: whole, types: [.qr]))
        }
        #expect(reading.count == 1, "\(reading.count) of the 20 views read the code: the test no longer tests a view read alone")
        #expect(neighbours.contains([text]), "\(neighbours)")
        #expect(vouched.map { String(decoding: $0.payload, as: UTF8.self) } == [text])
    }

    /// A neighbour samples much as its view does, so what it vouches for must fill a tenth of the
    /// place at least: the glare misread of `qr-glare-unrolled.png` covers 3.5 % of its place and
    /// would not stand even vouched for; the code of `qr-curved-bowed.png` covers most of its own.
    @Test func aNeighbourVouchesOnlyForACodeThatFillsItsPlace() throws {
        let glare = try StillImage.load(path: Fixtures.path("qr-glare-unrolled.png"))
        let bowed = try StillImage.load(path: Fixtures.path("qr-curved-bowed.png"))
        let reader = StillCodeReader(types: [.qr], zbar: nil, processors: 1)
        let place = (x: 60, y: 52, width: 140, height: 120)
        let whole = (x: 0, y: 0, width: bowed.width, height: bowed.height)
        let (misread, read) = reader.lanes[0].withLock { lane in
            (lane.readUnrolled(glare, region: place, view: CylinderView(axisIsVertical: true, centre: 91, radius: 84), types: [.qr]),
             lane.readUnrolled(bowed, region: whole, types: [.qr]))
        }
        #expect(misread.map { String(decoding: $0.payload, as: UTF8.self) } == ["2356"], "the test no longer has its misread")
        #expect(!StillCodeReader.Lane.fills(place, try #require(misread.first)))
        #expect(StillCodeReader.Lane.fills(whole, try #require(read.first)))
        // The bound: a tenth of the place's pixels.
        let region = (x: 10, y: 10, width: 140, height: 120)
        #expect(!StillCodeReader.Lane.fills(region, StillCodeMergeTests.code("a", .qr, x: 20, y: 20, width: 40, height: 40)))
        #expect(StillCodeReader.Lane.fills(region, StillCodeMergeTests.code("a", .qr, x: 20, y: 20, width: 41, height: 41)))
    }

    /// A view that bends a symbol the wrong way can sample a grid of its own inside it that passes
    /// Reed-Solomon (Tests/Fixtures/qr-glare-unrolled.png: a version 5 code of 2.5 px modules under
    /// glare, from the benchmark photograph qr-bench/glare/019.jpg, where one view of a place read
    /// it as a version 1 code holding "2356"). No second view reads that there, so it is not
    /// reported; the code itself is read by the first looks.
    @Test func aReadOfOneViewAloneIsNotReported() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-glare-unrolled.png"))
        let reader = StillCodeReader(types: [.qr], zbar: BarcodeScanner(types: [.qr]), processors: 1)
        let place = (x: 60, y: 52, width: 140, height: 120)
        let (alone, vouched) = reader.lanes[0].withLock { lane in
            (lane.readUnrolled(image, region: place, view: CylinderView(axisIsVertical: true, centre: 91, radius: 84), types: [.qr]),
             lane.readUnrolled(image, region: place, types: [.qr]))
        }
        #expect(alone.map { String(decoding: $0.payload, as: UTF8.self) } == ["2356"],
                "the view no longer misreads the code: the test no longer tests vouching")
        #expect(vouched.isEmpty, "\(vouched.map { String(decoding: $0.payload, as: UTF8.self) })")
        let whole = (x: 0, y: 0, width: image.width, height: image.height)
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(codes.map { String(decoding: $0.payload, as: UTF8.self) } == ["0ULMHWKWMBHJAXKAGU58KFUSC48IRVRHP3HNQXF9MYWXFF1F6442EH6J"])
    }

    /// A picture (tightly packed) unrolled by `view`, and the copy's size.
    static func unrolled(_ picture: [UInt8], width: Int, height: Int, by view: CylinderView) -> (copy: [UInt8], size: (width: Int, height: Int)) {
        let size = view.copySize(width: width, height: height)
        var copy = [UInt8](repeating: 0, count: size.width * size.height)
        let made = picture.withUnsafeBufferPointer { source in
            copy.withUnsafeMutableBufferPointer { view.unroll(source.baseAddress!, width: width, height: height, bytesPerRow: width, into: $0.baseAddress!) }
        }
        #expect(made)
        return (copy, size)
    }
}
