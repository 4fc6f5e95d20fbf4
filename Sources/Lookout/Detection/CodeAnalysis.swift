/// The code job of a metadata output: ZBar over the rect of interest of each frame, and the last
/// result restamped onto frames found unchanged. Used on one queue only.
final class CodeAnalysis {
    /// ZBar scan density (1 = every line) and the plane codes are read from.
    let density: Int
    let resolution: CodeScanResolution

    private var scanner: BarcodeScanner?
    private var appliedGeneration = -1
    private var lastCodes: [(type: MetadataObjectType, payload: [UInt8], corners: [Point])] = []

    init(density: Int, resolution: CodeScanResolution) {
        self.density = density
        self.resolution = resolution
    }

    /// The codes in `frame` whose centre lies in `rectOfInterest`, in frame pixels. The scanner is
    /// rebuilt when the wanted types changed (`generation`). Returns nil when no code type is wanted.
    func detect(in frame: SampleBuffer, types: [MetadataObjectType], generation: Int,
                rectOfInterest: Rect) -> [MetadataObject]? {
        if generation != appliedGeneration {
            let codeTypes = Set(types.filter(\.isMachineReadableCode))
            scanner = codeTypes.isEmpty ? nil : BarcodeScanner(types: codeTypes, density: density, resolution: resolution)
            appliedGeneration = generation
        }
        lastCodes.removeAll(keepingCapacity: true)
        guard let scanner else { return nil }
        let image = frame.imageBuffer
        let region = SearchRegion(rectOfInterest, in: image)
        let found = scanner.scan(image, region: region.pixels, planeIsHalfSize: frame.lumaReduction == 2)
        var objects = [MetadataObject]()
        let scale = frame.lumaScale
        for code in found {
            let box = Rect.enclosing(code.corners)
            guard region.rect.contains(Point(x: box.midX, y: box.midY)) else { continue }
            // Plane pixels to frame pixels.
            let corners = scale == (1, 1) ? code.corners : code.corners.map { Point(x: $0.x * scale.x, y: $0.y * scale.y) }
            lastCodes.append((code.type, code.payload, corners))
            objects.append(MachineReadableCodeObject(type: code.type, frame: frame, payload: code.payload,
                                                     pixelCorners: corners))
        }
        return objects
    }

    /// The last frame's codes, on an unchanged frame.
    func restamp(onto frame: SampleBuffer) -> [MetadataObject] {
        lastCodes.map { MachineReadableCodeObject(type: $0.type, frame: frame, payload: $0.payload, pixelCorners: $0.corners) }
    }
}
