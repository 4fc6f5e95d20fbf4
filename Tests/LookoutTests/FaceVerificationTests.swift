import Foundation
import Testing
@testable import Lookout

/// The second look at each face, and the tracker's confirmation in video.
@Suite("Face verification")
struct FaceVerificationTests {
    /// scikit-image's coins (public domain): the old defaults (no verifier, shrunk to 640 px)
    /// saw 7 faces in it; the verifier rejects them all.
    @Test func coinsAreNoFaces() throws {
        let old = try lookout(["scan", "--types", "face", "--face-verifier", "none", "--face-width", "640", Fixtures.path("noface-coins.png")])
        #expect(old.lines.count == 7)
        let now = try lookout(["scan", "--types", "face", Fixtures.path("noface-coins.png")])
        #expect(now.status == 0 && now.lines.isEmpty)
    }

    /// The verifier keeps the real face of the sample frame, in the right place.
    @Test func theSampleFaceStays() throws {
        let expected = try Fixtures.sampleExpectation().faceBox
        let objects = try jsonObjects(try lookout(["scan", "--types", "face", Fixtures.path("frame0.jpg")]))
        #expect(objects.count == 1)
        let box = try #require(objects.first?["pixel_bounds"] as? [String: Double])
        let found = Rect(x: box["x"] ?? 0, y: box["y"] ?? 0, width: box["width"] ?? 0, height: box["height"] ?? 0)
        #expect(found.intersectionOverUnion(expected) > 0.4)
    }

    @Test func aMissingVerifierModelIsNamed() throws {
        let result = try lookout(["scan", "--types", "face", "--face-verifier", "/nonexistent/alt2.xml", Fixtures.path("frame0.jpg")])
        #expect(result.status != 0 && result.stderr.contains("/nonexistent/alt2.xml"))
    }

    /// A face found on one analysis only is not reported with two confirmations; found again
    /// nearby, it is, with the same ID; one found once and gone for longer than the retention
    /// never is.
    @Test func trackerConfirmsAFaceOnItsSecondSighting() {
        let tracker = FaceTracker(retention: MediaTime(seconds: 1), confirmations: 2)
        let flicker = Rect(x: 400, y: 300, width: 60, height: 60)
        #expect(tracker.track([flicker], at: MediaTime(seconds: 0)).map(\.isConfirmed) == [false])
        let face = Rect(x: 100, y: 100, width: 80, height: 80)
        let first = tracker.track([face], at: MediaTime(seconds: 1.5))
        #expect(first.map(\.isConfirmed) == [false])
        let second = tracker.track([Rect(x: 104, y: 102, width: 80, height: 80)], at: MediaTime(seconds: 1.6))
        #expect(second.map(\.isConfirmed) == [true] && second.first?.id == first.first?.id)
        // The flicker's place, found again after its track ended: a new face, unconfirmed.
        #expect(tracker.track([flicker], at: MediaTime(seconds: 2)).map(\.isConfirmed) == [false])
    }
}
