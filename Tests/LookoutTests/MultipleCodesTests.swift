import Foundation
import Testing
@testable import Lookout

/// Every code in the picture is reported, once each: a shelf of twelve labels (ten codes, two of
/// them twice, 4 px modules) gives twelve lines in `scan` and on each reported frame of `run`.
@Suite("Every code in the picture")
struct MultipleCodesTests {
    static let labels = ["SHELF-00-499529", "SHELF-01-448362", "SHELF-02-341926", "SHELF-03-274102", "SHELF-04-504362",
                         "SHELF-05-706012", "SHELF-06-823656", "SHELF-07-397226", "SHELF-08-679924", "SHELF-09-390231",
                         "SHELF-00-499529", "SHELF-03-274102"]

    /// The values read, sorted, and whether each label's box was reported once.
    static func check(_ objects: [[String: Any]]) {
        #expect(objects.compactMap { $0["value"] as? String }.sorted() == labels.sorted())
        let centres = objects.compactMap { object -> (Double, Double)? in
            guard let box = object["pixel_bounds"] as? [String: Double], let x = box["x"], let y = box["y"],
                  let width = box["width"], let height = box["height"] else { return nil }
            return (x + width / 2, y + height / 2)
        }
        // No two reports of one symbol: the same code twice lies on two labels far apart.
        for (index, centre) in centres.enumerated() {
            for other in centres[(index + 1)...] {
                #expect(hypot(centre.0 - other.0, centre.1 - other.1) > 100, "\(centres)")
            }
        }
    }

    @Test func aStillGivesEveryLabel() throws {
        let result = try lookout(["scan", "--types", "qr", Fixtures.path("qr-shelf.png")])
        #expect(result.status == 0, "\(result.stderr)")
        Self.check(try jsonObjects(result))
    }

    /// 720p video with the defaults but the second look's budget: all twelve on one frame. ZBar,
    /// on the half-size copy, reads none of these 4-px modules; zxing-cpp's second look reads all
    /// twelve, within its budget (`--code-budget`), which a loaded machine can spend before it
    /// is done (beside four busy processes, 1 run in 10 read nothing at the default, none of 20
    /// at 5 s).
    @Test func aFrameGivesEveryLabel() throws {
        let image = try StillImage.load(path: Fixtures.path("qr-shelf.png"))
        var stream = Data("YUV4MPEG2 W\(image.width) H\(image.height) F10:1 Ip A1:1 Cmono\n".utf8)
        for _ in 0..<3 {
            stream.append(Data("FRAME\n".utf8))
            for row in 0..<image.height { stream.append(Data(bytes: image.baseAddress + row * image.bytesPerRow, count: image.width)) }
        }
        let result = try lookout(["run", "--input", "-", "--types", "qr", "--code-budget", "5000"], input: stream)
        #expect(result.status == 0, "\(result.stderr)")
        let codes = try jsonObjects(result).filter { $0["kind"] as? String == "qr" }
        let firstFrame = try #require(codes.first?["frame"] as? Int)
        Self.check(codes.filter { $0["frame"] as? Int == firstFrame })
    }
}
