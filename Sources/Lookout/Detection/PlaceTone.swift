import COpenCV
import CZXing
import Foundation

/// How a place's tones are set before it is read again (`StillCodeReader.enlargedPlaces`).
extension StillCodeReader {
    /// How a place that gave nothing enlarged has its tones set right before it is enlarged again,
    /// in this order until one reads: a small code over-exposed, under glare or in a shadow loses
    /// its light modules to the place's light. Enlarging the marked surroundings of the 70 codes
    /// the benchmark photographs' steps missed in those categories reads 10 flattened, 7 darkened,
    /// 13 either way (stretched, equalised or other gammas 3 more between them); in the places
    /// found, flattening reads 14, and darkening an over-exposed code flattening does not.
    enum PlaceTone: CaseIterable, Hashable {
        /// Divided by the light around each pixel, stretched and sharpened (`lk_flatten_sharpen`).
        case flattened
        /// Darkened by a gamma of 3: an over-exposed code's light modules come apart from its dark ones.
        case darkened

        func apply(_ origin: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int,
                   into toned: UnsafeMutablePointer<UInt8>) -> Bool {
            switch self {
            case .flattened:
                return lk_flatten_sharpen(origin, Int32(width), Int32(height), Int32(bytesPerRow), toned) == 0
            case .darkened:
                for row in 0..<height {
                    for column in 0..<width { toned[row * width + column] = Self.gamma3[Int(origin[row * bytesPerRow + column])] }
                }
                return true
            }
        }

        private static let gamma3: [UInt8] = (0..<256).map { UInt8((255 * pow(Double($0) / 255, 3)).rounded()) }
    }
}
