/// Which library read a code: the `decoder` field of its line.
public enum CodeDecoder: String, Sendable, Equatable, CaseIterable {
    /// ZBar, on the frame or on a prepared copy of it (the first decoder, on every frame).
    case zbar
    /// zxing-cpp, in the second pass over frames where ZBar found nothing, and for the kinds only
    /// it reads (PDF417, Aztec, DataMatrix).
    case zxing
    /// Lookout's own reading of EAN-13 bars from their grey levels, where blur or modules near a
    /// pixel defeat a threshold (`lookout scan` only; `EAN13ProfileReader`).
    case lookout
}
