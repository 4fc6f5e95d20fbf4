/// The capture loop's decode: a frame's bytes to one luma image for every output taking it, at
/// the smallest size they all accept, or the last image again when they accept an unchanged frame
/// and a 1/8-scale look finds nothing moved (no decode at all). Capture thread only.
struct FrameDecodeStep {
    /// What a decode gave, and how.
    struct Decoded {
        var result: LumaConverter.Result
        /// The last image given again: the frame did not change.
        var isLastImage = false
        /// Decoded at half size.
        var isHalved = false
    }

    private let converter: LumaConverter
    private let pool: BufferPool
    /// Recorded input waits for a pool buffer; real-time input never does.
    private let waits: Bool
    /// The last decoded image and its frame's size, kept while outputs accept unchanged frames
    /// (one pool buffer).
    private var lastImage: (image: PixelBuffer, width: Int, height: Int)?

    init(converter: LumaConverter, pool: BufferPool, waits: Bool) {
        self.converter = converter
        self.pool = pool
        self.waits = waits
    }

    /// Decodes `payload` (not `.corrupt`) as `needs` allow; `pixelsWanted` is false when no taker
    /// looks at this frame's pixels (then a frame of the same size counts as unchanged).
    mutating func decode(_ payload: SourceFrame.Payload, format: VideoFormatDescription, needs: OutputRequirements,
                         pixelsWanted: Bool) throws(MediaError) -> Decoded {
        func reduction(width: Int, height: Int) -> Int {
            needs.acceptsHalfPlane(frameWidth: width) ? 2 : 1
        }
        switch payload {
        case .jpeg(let bytes):
            let tolerance = needs.unchangedFrameTolerance
            if tolerance > 0, let last = lastImage,
               last.image.width >= last.width / reduction(width: last.width, height: last.height),
               try pixelsWanted ? converter.jpegIsUnchanged(bytes, threshold: tolerance)
                                : converter.jpegHasSize(bytes, width: last.width, height: last.height) {
                return Decoded(result: .image(last.image, width: last.width, height: last.height), isLastImage: true)
            }
            let result = try converter.convertJPEG(bytes, pool: pool, wait: waits, reduction: reduction)
            var decoded = Decoded(result: result)
            if case .image(let image, let width, _) = result, image.width < width { decoded.isHalved = true }
            if tolerance > 0, case .image(let image, let width, let height) = result {
                // The first image kept: its 1/8-scale look is the reference the next frame is
                // compared with.
                if lastImage == nil { _ = try converter.jpegIsUnchanged(bytes, threshold: tolerance) }
                lastImage = (image, width, height)
            } else {
                forget()
            }
            return decoded
        case .raw(let bytes, let bytesPerRow):
            return Decoded(result: try converter.convertRaw(bytes, format: format, bytesPerRow: bytesPerRow,
                                                             pool: pool, wait: waits))
        case .corrupt(let reason):
            throw .corruptImage(reason: reason)
        }
    }

    /// Lets go of the last image: the next frame is decoded whatever it holds (after a damaged one).
    mutating func forget() {
        lastImage = nil
        converter.resetChangeDetection()
    }
}
