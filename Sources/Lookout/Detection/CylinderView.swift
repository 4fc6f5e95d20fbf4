import Foundation

/// A place of a still seen as a label wrapped round a can or a bottle, unrolled: a camera sees the
/// cylinder's surface at `x = centre + radius · sin(s / radius)` across its axis (`s` the arc
/// length), so a code's modules narrow towards the cylinder's sides and no perspective transform
/// lays its grid flat. The copy samples the place at even steps of arc, which makes the modules
/// even again. The axis runs along the place's columns (a can standing) or its rows (lying).
struct CylinderView: Equatable {
    /// True when the axis runs down the place (columns narrow towards its left and right).
    let axisIsVertical: Bool
    /// Where the axis lies across the place, in the place's pixels from its left (or top) edge.
    let centre: Double
    /// The cylinder's radius in the place's pixels.
    let radius: Double

    /// The views a place is unrolled in, in turn: the curvature is not known, so a small ladder.
    /// Unrolling the surroundings of each curved code the benchmark photographs' earlier steps
    /// missed, a radius of the symbol's width with the axis a third, a sixth or none of it from its
    /// middle reads every code a radius from 0.55 to 3.2 of it does (6 of 15: the rest are small
    /// modules, or wrapped so far their sides are lost). A place found is often wider than its
    /// symbol: at 0.6 of the place's width, a second view confirms one code more (and reads
    /// another alone).
    static func views(width: Int, height: Int) -> [CylinderView] {
        radii.flatMap { radius in
            [true, false].flatMap { vertical in
                let across = Double(vertical ? width : height)
                return offsets.map { CylinderView(axisIsVertical: vertical, centre: across * (0.5 + $0), radius: across * radius) }
            }
        }
    }

    /// The radii tried, as shares of the place's width across the axis.
    static let radii: [Double] = [1, 0.6]

    /// Where the axis may be, as a share of the place's width from its middle.
    static let offsets: [Double] = [0, -0.15, 0.15, -0.3, 0.3]

    /// The arc lengths of the place's two edges across the axis, the near one first, within the
    /// cylinder's face: a place reaching past the cylinder's sides is unrolled where the face is.
    private func arc(across extent: Int) -> (start: Double, end: Double) {
        let left = max(-1, -centre / radius), right = min(1, (Double(extent - 1) - centre) / radius)
        return (radius * asin(left), radius * asin(max(left, right)))
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

    /// A point of the unrolled copy in the place's pixels.
    func placePoint(_ point: Point, width: Int, height: Int) -> Point {
        let arc = arc(across: axisIsVertical ? width : height)
        if axisIsVertical { return Point(x: position(ofSample: point.x, arcStart: arc.start), y: point.y) }
        return Point(x: point.x, y: position(ofSample: point.y, arcStart: arc.start))
    }
}
