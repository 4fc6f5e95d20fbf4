import Foundation

/// A place of a still seen as a label wrapped round a can or a bottle, unrolled: a camera sees the
/// cylinder's surface at `x = centre + radius · sin(s / radius)` across its axis (`s` the arc
/// length), so a code's modules narrow towards the cylinder's sides and no perspective transform
/// lays its grid flat. The copy samples the place at even steps of arc, which makes the modules
/// even again. The axis runs along the place's columns (a can standing) or its rows (lying). A
/// camera above or below the label also sees its rows bow (the sides are farther away), so a
/// view may bend: each sample is taken from `bend · (1 - cos θ)` of the place's extent along the
/// axis away, θ its angle round the axis.
struct CylinderView: Equatable {
    /// True when the axis runs down the place (columns narrow towards its left and right).
    let axisIsVertical: Bool
    /// Where the axis lies across the place, in the place's pixels from its left (or top) edge.
    let centre: Double
    /// The cylinder's radius in the place's pixels.
    let radius: Double
    /// How far the rows bow at the cylinder's sides (θ of 90 degrees), as a share of the place's
    /// extent along the axis: positive towards its bottom (or right).
    var bend: Double = 0

    /// The views a place is unrolled in, in turn: the curvature is not known, so a small ladder.
    /// Unrolling the surroundings of each curved code the benchmark photographs' earlier steps
    /// missed, a radius of the symbol's width with the axis a third, a sixth or none of it from its
    /// middle reads every code a radius from 0.55 to 3.2 of it does (6 of 15: the rest are small
    /// modules, or wrapped so far their sides are lost). A place found is often wider than its
    /// symbol: at 0.6 of the place's width, a second view confirms one code more (and reads
    /// another alone).
    ///
    /// With `bent`, 40 more: the 20 bowed by a tenth of the place's extent along the axis, one
    /// way and then the other (a camera above or below the can). Only tight places get them
    /// (`StillCodeReader.tightened`): in every place, they read one benchmark code more than
    /// the neighbours alone, for a quarter more CPU.
    static func views(width: Int, height: Int, bent: Bool = false) -> [CylinderView] {
        (bent ? [0, -bentBy, bentBy] : [0]).flatMap { bend in
            radii.flatMap { radius in
                [true, false].flatMap { vertical in
                    let across = Double(vertical ? width : height)
                    return offsets.map { CylinderView(axisIsVertical: vertical, centre: across * (0.5 + $0), radius: across * radius, bend: bend) }
                }
            }
        }
    }

    /// The views a symbol zxing-cpp found but could not decode is unrolled in, in turn, its place
    /// the symbol's box grown so that the symbol fills about half of it: a place known to hold a
    /// symbol affords a finer ladder than the places found, 450 views (radii of 0.45 to 1.2 of
    /// its width, the axis up to 0.4 of it from its middle, bowed up to a tenth either way),
    /// about half a millisecond each. Of the three curved benchmark codes zxing-cpp found and
    /// could not decode, the 20 views read none, these two (and a wrapped DataMatrix symbol).
    static func ladder(width: Int, height: Int) -> [CylinderView] {
        [0, -bendStep, bendStep, -bentBy, bentBy].flatMap { bend in
            [1.2, 1, 0.8, 0.6, 0.45].flatMap { radius in
                [true, false].flatMap { vertical in
                    let across = Double(vertical ? width : height)
                    return [0, -0.1, 0.1, -0.2, 0.2, -0.3, 0.3, -0.4, 0.4].map {
                        CylinderView(axisIsVertical: vertical, centre: across * (0.5 + $0), radius: across * radius, bend: bend)
                    }
                }
            }
        }
    }

    /// The views beside this one, bent a little less and a little more: a code read in one view
    /// is often read in one of these too; the grid that passed Reed-Solomon by chance in
    /// `qr-glare-unrolled.png` is not.
    var neighbours: [CylinderView] {
        [-Self.bendStep, Self.bendStep].map { CylinderView(axisIsVertical: axisIsVertical, centre: centre, radius: radius, bend: bend + $0) }
    }

    /// The radii tried, as shares of the place's width across the axis.
    static let radii: [Double] = [1, 0.6]

    /// Where the axis may be, as a share of the place's width from its middle.
    static let offsets: [Double] = [0, -0.15, 0.15, -0.3, 0.3]

    /// The same view as `other`, the bends compared within rounding (a neighbour of two views).
    func isSame(as other: CylinderView) -> Bool {
        axisIsVertical == other.axisIsVertical && centre == other.centre && radius == other.radius && abs(bend - other.bend) < 1e-6
    }

    /// How far bent views bow, and a neighbour is bent from its view.
    static let bentBy = 0.1
    static let bendStep = 0.05

    /// The arc lengths of the place's two edges across the axis, the near one first, within the
    /// cylinder's face: a place reaching past the cylinder's sides is unrolled where the face is.
    private func arc(across extent: Int) -> (start: Double, end: Double) {
        let left = max(-1, -centre / radius), right = min(1, (Double(extent - 1) - centre) / radius)
        return (radius * asin(left), radius * asin(max(left, right)))
    }

    /// How far sample `index` is taken along the axis, in the place's pixels, for a place `along`
    /// pixels long that way.
    private func shift(ofSample index: Double, arcStart: Double, along: Int) -> Double {
        bend * Double(along) * (1 - cos((arcStart + index) / radius))
    }

    /// The unrolled copy's width and height for a place of `width` by `height` pixels.
    func copySize(width: Int, height: Int) -> (width: Int, height: Int) {
        let arc = arc(across: axisIsVertical ? width : height)
        let samples = Int((arc.end - arc.start).rounded(.up)) + 1
        return axisIsVertical ? (samples, height) : (width, samples)
    }

    /// Where sample `index` of the copy lies across the axis, in the place's pixels.
    private func position(ofSample index: Double, arcStart: Double) -> Double {
        centre + radius * sin((arcStart + index) / radius)
    }

    /// Writes the unrolled copy of the place (`origin`, `width` by `height`, `bytesPerRow`) into
    /// `copy` (tightly packed, `copySize`), interpolating linearly across the axis. Returns false
    /// when the place is too small to interpolate in.
    func unroll(_ origin: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int,
                into copy: UnsafeMutablePointer<UInt8>) -> Bool {
        guard width >= 2, height >= 2 else { return false }
        let size = copySize(width: width, height: height), arc = arc(across: axisIsVertical ? width : height)
        let extent = axisIsVertical ? width : height
        let samples = axisIsVertical ? size.width : size.height
        // Each sample's left (or upper) source pixel and its weight in 256ths, worked out once.
        let taps = (0..<samples).map { index -> (near: Int, weight: Int) in
            let position = min(max(position(ofSample: Double(index), arcStart: arc.start), 0), Double(extent - 1))
            let near = min(Int(position), extent - 2)
            return (near, Int(((position - Double(near)) * 256).rounded()))
        }
        // Unbent views, 20 of a place's 20 or 60, keep the cheaper pass that interpolates one way.
        if bend != 0 {
            bentUnroll(origin, width: width, height: height, bytesPerRow: bytesPerRow, taps: taps, arcStart: arc.start, into: copy)
            return true
        }
        for row in 0..<height where axisIsVertical {
            let source = origin + row * bytesPerRow, target = copy + row * samples
            for (index, tap) in taps.enumerated() {
                target[index] = UInt8((Int(source[tap.near]) * (256 - tap.weight) + Int(source[tap.near + 1]) * tap.weight + 128) >> 8)
            }
        }
        for (index, tap) in taps.enumerated() where !axisIsVertical {
            let first = origin + tap.near * bytesPerRow, second = first + bytesPerRow, target = copy + index * width
            for column in 0..<width {
                target[column] = UInt8((Int(first[column]) * (256 - tap.weight) + Int(second[column]) * tap.weight + 128) >> 8)
            }
        }
        return true
    }

    /// `unroll` for a bent view: each sample's line along the axis is shifted by the bend, so
    /// every pixel is interpolated both ways.
    private func bentUnroll(_ origin: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int,
                            taps: [(near: Int, weight: Int)], arcStart: Double, into copy: UnsafeMutablePointer<UInt8>) {
        let along = axisIsVertical ? height : width
        for (index, tap) in taps.enumerated() {
            let shift = shift(ofSample: Double(index), arcStart: arcStart, along: along)
            for step in 0..<along {
                let position = min(max(Double(step) + shift, 0), Double(along - 1))
                let near = min(Int(position), along - 2), weight = Int(((position - Double(near)) * 256).rounded())
                let (x, y) = axisIsVertical ? (tap.near, near) : (near, tap.near)
                let (across, down) = axisIsVertical ? (tap.weight, weight) : (weight, tap.weight)
                let top = origin + y * bytesPerRow + x, bottom = top + bytesPerRow
                let upper = Int(top[0]) * (256 - across) + Int(top[1]) * across
                let lower = Int(bottom[0]) * (256 - across) + Int(bottom[1]) * across
                copy[axisIsVertical ? step * taps.count + index : index * width + step] = UInt8((upper * (256 - down) + lower * down + 32768) >> 16)
            }
        }
    }

    /// A point of the unrolled copy in the place's pixels.
    func placePoint(_ point: Point, width: Int, height: Int) -> Point {
        let arc = arc(across: axisIsVertical ? width : height)
        // Bowed, clamped as the samples are: a sample past the place's edge repeats the edge.
        func bowed(_ along: Double, at sample: Double, extent: Int) -> Double {
            bend == 0 ? along : min(max(along + shift(ofSample: sample, arcStart: arc.start, along: extent), 0), Double(extent - 1))
        }
        if axisIsVertical {
            return Point(x: position(ofSample: point.x, arcStart: arc.start), y: bowed(point.y, at: point.x, extent: height))
        }
        return Point(x: bowed(point.x, at: point.y, extent: width), y: position(ofSample: point.y, arcStart: arc.start))
    }
}
