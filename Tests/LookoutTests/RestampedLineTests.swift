import Foundation
@testable import Lookout
import Testing

@Suite("Restamped lines")
struct RestampedLineTests {
    /// An encoder that made a line for an object makes the line of the same object on a later frame
    /// from the parts that do not change: byte for byte what a fresh encoder makes, zone included.
    @Test func theLineOfAnObjectOnAnotherFrameIsWhatAFreshEncoderWrites() throws {
        let (_, output) = try Fixtures.metadataOutput(types: [.qr, .ean13, .face])
        let image = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        let first = output.metadataObjects(in: image, sequence: 0, wallClockTime: WallClockTime(seconds: 1_000, nanoseconds: 0))
        let later = output.metadataObjects(in: image, sequence: 7, wallClockTime: WallClockTime(seconds: 1_000, nanoseconds: 233_000_000))
        try #require(first.count >= 3)
        try #require(first.count == later.count)
        var encoder = DetectionLineEncoder(source: "sample.mjpeg", camera: "hall")
        func fresh(_ object: MetadataObject) -> [UInt8] {
            var encoder = DetectionLineEncoder(source: "sample.mjpeg", camera: "hall")
            return encoder.encode(object)
        }
        for object in first { #expect(encoder.encode(object) == fresh(object)) }
        for object in later {
            let line = encoder.encode(object)
            #expect(line == fresh(object))
            #expect(String(decoding: line, as: UTF8.self).contains("\"frame\":7,"))
        }
        // A field beyond the frame's changes: the line is made anew.
        let moved = try #require(later.first)
        moved.zone = "door"
        let line = encoder.encode(moved)
        #expect(line == fresh(moved))
        #expect(String(decoding: line, as: UTF8.self).contains("\"zone\":\"door\""))
    }
}
