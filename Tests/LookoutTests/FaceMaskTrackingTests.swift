import Foundation
import Testing
@testable import Lookout

/// A face in a mask is out of view for the tracker as for the events: a visit ends there once,
/// and the face coming out of the mask after the leave delay enters once with a new ID.
@Suite("Face tracks and masks")
struct FaceMaskTrackingTests {
    @Test func aFaceInAMaskLeavesAndComesBackAsANewFace() throws {
        let picture = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        var configuration = FaceDetectorConfiguration(cascadePath: Fixtures.faceModel)
        configuration.trackRetention = MediaTime(seconds: 1)
        let analysis = try FaceAnalysis(configuration: configuration)
        let expected = try Fixtures.sampleExpectation().faceBox.normalized(width: picture.width, height: picture.height)
        let margin = 0.05
        let mask = try RegionPolygon([Point(x: expected.x - margin, y: expected.y - margin),
                                      Point(x: expected.maxX + margin, y: expected.y - margin),
                                      Point(x: expected.maxX + margin, y: expected.maxY + margin),
                                      Point(x: expected.x - margin, y: expected.maxY + margin)])
        let masked = try DetectionRegions(masks: [mask])
        var events = EventGenerator() // --face-leave 1 s, as the tracker's retention above
        var enters: [Int] = [], leaves: [Int] = [], maskedCount = 0
        // Ten analyses a second: in view 0-1 s, in the mask 1.1-4 s, in view again 4.1-5 s.
        for step in 0...50 {
            let seconds = Double(step) / 10
            let frame = SampleBuffer(sequence: UInt64(step), presentationTime: MediaTime(seconds: seconds), wallClockTime: .now(),
                                     formatDescription: VideoFormatDescription(width: picture.width, height: picture.height, pixelFormat: .gray),
                                     imageBuffer: picture)
            let inMask = seconds > 1.05 && seconds < 4.05
            let (objects, dropped) = try analysis.detect(in: frame, rectOfInterest: .unit, singleThreaded: true,
                                                         regions: inMask ? masked : .none)
            maskedCount += dropped
            #expect(objects.isEmpty == inMask, "at \(seconds) s")
            let faces = objects.compactMap { $0 as? FaceObject }
            for event in events.process(faces, in: AnalysedFrame(frame, analysedCodes: false, analysedFaces: true)) {
                switch event {
                case .faceEnter(let face): enters.append(face.faceID)
                case .faceLeave(let leave): leaves.append(leave.faceID)
                default: break
                }
            }
        }
        #expect(maskedCount == 30)
        #expect(enters.count == 2 && leaves.count == 1)
        #expect(Set(enters).count == 2 && leaves.first == enters.first)
    }
}
