import COpenCV
import Foundation
import Testing
@testable import Lookout

/// A camera shaken while the shutter was open: the straight motion blur found in a place
/// (`lk_shake_estimate`) and undone (`lk_deconvolve_shake`, `StillCodeReader.Blur.shake`).
@Suite("shake deconvolution")
struct ShakeDeconvolutionTests {
    static let shaken = "https://lookout.example/shaken/2026"

    /// Tests/Fixtures/qr-shaken.png was smeared 8.5 px at 30 degrees (scripts/make-fixtures): the
    /// estimate finds that line, not the modules' width along the code's upright grid (4 px at 90
    /// degrees, where the deepest trough of this picture lies), which a box of a module leaves in
    /// the cepstrum too, along both axes.
    @Test func theShakeIsFoundAlongItsLine() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-shaken.png"))
        var (length, angle) = (0.0, 0.0)
        let found = lk_shake_estimate(image.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bytesPerRow),
                                      &length, &angle)
        #expect(found == 0)
        #expect(length >= 7.5 && length <= 10, "length \(length)")
        #expect(abs(angle * 180 / .pi - 30) <= 6, "angle \(angle * 180 / .pi) degrees")
    }

    /// Both refuse what they cannot do, and the deconvolution keeps a plain picture plain.
    @Test func theShakeRefusesBadArgumentsAndKeepsAPlainPicturePlain() {
        let (width, height) = (40, 30)
        let plain = [UInt8](repeating: 200, count: width * height)
        var out = [UInt8](repeating: 7, count: width * height)
        var (length, angle) = (0.0, 0.0)
        let made = plain.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                [lk_deconvolve_shake(source.baseAddress!, Int32(width), Int32(height), Int32(width), 6, 0.5, 0.01, target.baseAddress!),
                 lk_deconvolve_shake(source.baseAddress!, Int32(width), Int32(height), Int32(width), 0.5, 0.5, 0.01, target.baseAddress!),
                 lk_deconvolve_shake(source.baseAddress!, Int32(width), Int32(height), Int32(width), 6, 0.5, 0, target.baseAddress!),
                 lk_deconvolve_shake(source.baseAddress!, 0, Int32(height), Int32(width), 6, 0.5, 0.01, target.baseAddress!),
                 lk_shake_estimate(source.baseAddress!, 12, 12, Int32(width), &length, &angle)]
            }
        }
        #expect(made == [0, -1, -1, -1, -1])
        // A flat picture's one frequency is zero, which the filter keeps: 200 / (1 + 0.01).
        #expect(out.allSatisfy { abs(Int($0) - 198) <= 1 }, "\(Set(out))")
    }

    /// No first look reads the shaken symbols, nor any Gaussian rung of their ladder (a camera out
    /// of focus blurs every way alike); the shake rung does, and so scan's places read them.
    @Test(arguments: [
        ("qr-shaken.png", MetadataObjectType.qr, "qr", ShakeDeconvolutionTests.shaken),
        ("aztec-shaken.png", MetadataObjectType.aztec, "matrix", "https://lookout.example/shaken/aztec/2026"),
    ])
    func aShakenSymbolIsReadDeconvolvedByItsShakeInItsPlace(fixture: String, type: MetadataObjectType, ladder: String,
                                                            text: String) throws {
        let (image, whole, reader) = try LinearPlacesTests.unreadByFirstLooks(fixture, types: [type])
        func texts(_ codes: [ScannedCode]) -> [String] { codes.map { String(decoding: $0.payload, as: UTF8.self) } }
        let rungs = reader.lanes[0].withLock { lane in
            (ladder == "qr" ? StillCodeReader.qrDeconvolutions : StillCodeReader.matrixDeconvolutions).map {
                (blur: $0.blur,
                 read: texts(lane.readDeconvolved(image, region: whole, blur: $0.blur, noise: $0.noise, enlarged: $0.enlarged,
                                                  types: [type])))
            }
        }
        #expect(rungs.filter { $0.blur != .shake }.allSatisfy { $0.read.isEmpty }, "\(rungs)")
        #expect(rungs.contains { $0.blur == .shake && $0.read == [text] }, "\(rungs)")
        let codes = reader.read(image, region: whole, budget: 600_000, planeIsHalfSize: false)
        #expect(texts(codes) == [text])
    }
}
