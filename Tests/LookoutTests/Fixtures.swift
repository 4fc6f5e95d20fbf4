import Foundation
@testable import Lookout
import Testing

/// Paths to the committed fixtures (made by scripts/make-fixtures) and the built binary.
enum Fixtures {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func path(_ name: String) -> String { packageRoot + "/Tests/Fixtures/" + name }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    static let faceModel = packageRoot + "/models/haarcascade_frontalface_default.xml"

    /// What the sample clip holds (sample-expected.json).
    struct SampleExpectation: Decodable {
        struct Box: Decodable { var x, y, width, height: Double }
        var qr: String
        var ean13: String
        var frames: Int
        var width: Int
        var height: Int
        var fps: Int
        var face_box_frame0: Box
        var faceBox: Rect { Rect(x: face_box_frame0.x, y: face_box_frame0.y, width: face_box_frame0.width, height: face_box_frame0.height) }
    }

    static func sampleExpectation() throws -> SampleExpectation {
        try JSONDecoder().decode(SampleExpectation.self, from: Data(contentsOf: URL(fileURLWithPath: path("sample-expected.json"))))
    }

    /// A metadata output in a session of its own, looking for `types`.
    static func metadataOutput(types: [MetadataObjectType] = MetadataObjectType.defaultTypes) throws -> (CaptureSession, MetadataOutput) {
        let session = CaptureSession()
        let output = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: faceModel))
        try session.addOutput(output)
        try output.setMetadataObjectTypes(types)
        return (session, output)
    }

    /// `image` shrunk `factor` times in each direction (means of factor x factor pixels).
    static func shrunk(_ image: PixelBuffer, by factor: Int) throws -> PixelBuffer {
        let width = image.width / factor, height = image.height / factor
        let pool = BufferPool(count: 1)
        let index = try #require(pool.acquire(capacity: width * height, wait: false))
        let out = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                for dy in 0..<factor { for dx in 0..<factor { sum += Int(image[x * factor + dx, y * factor + dy]) } }
                out[y * width + x] = UInt8(sum / (factor * factor))
            }
        }
        return PixelBuffer(width: width, height: height, bytesPerRow: width, 
                           pool: pool, poolIndex: index)
    }
}
