import Testing
@testable import Lookout

/// Face analyses between whole searches (`faceFullSearchInterval`): a followed face is found in its
/// window where it moved to, a face appearing where something moved is found at once, and one
/// appearing where nothing seemed to move by the next whole search, within the interval. The real
/// cascade and verifier, on the astronaut's head cut from face-walk.mjpeg.
@Suite struct FaceWindowSearchTests {
    static let canvas = (width: 960, height: 540)

    /// The head of face-walk.mjpeg's first frame (the face found there, grown by 60 % of its size
    /// each side), to paste onto plain canvases.
    private static func head() throws -> (pixels: [UInt8], side: Int) {
        let frames = naiveFrames(try Fixtures.bytes("face-walk.mjpeg"))
        let first = try StillImage.decode(try #require(frames.first), path: "face-walk.mjpeg")
        let analysis = try FaceAnalysis(configuration: configuration())
        let found = try analysis.detect(in: sample(first, seconds: 0), rectOfInterest: .unit, singleThreaded: true).objects
        let face = try #require(found.first?.bounds, "the clip's first frame has a face")
        let box = Rect(x: face.x * Double(first.width), y: face.y * Double(first.height),
                       width: face.width * Double(first.width), height: face.height * Double(first.height))
        let side = Int(box.width * 2.2)
        let left = max(0, Int(box.midX) - side / 2), top = max(0, Int(box.midY) - side / 2)
        try #require(left + side <= first.width && top + side <= first.height)
        var pixels = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side { for x in 0..<side { pixels[y * side + x] = first[left + x, top + y] } }
        return (pixels, side)
    }

    /// A grey canvas with the head pasted with its top-left corner at each of `places`.
    private static func canvas(_ head: (pixels: [UInt8], side: Int), at places: [(x: Int, y: Int)], pool: BufferPool) throws -> PixelBuffer {
        let (width, height) = canvas
        let index = try #require(pool.acquire(capacity: width * height, wait: false))
        let out = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        out.update(repeating: 128, count: width * height)
        for place in places {
            for y in 0..<head.side { for x in 0..<head.side { out[(place.y + y) * width + place.x + x] = head.pixels[y * head.side + x] } }
        }
        return PixelBuffer(width: width, height: height, bytesPerRow: width, 
                           pool: pool, poolIndex: index)
    }

    private static func configuration() -> FaceDetectorConfiguration {
        var faces = FaceDetectorConfiguration(cascadePath: Fixtures.faceModel)
        faces.verificationCascadePath = Fixtures.packageRoot + "/models/haarcascade_frontalface_alt2.xml"
        faces.scaleFactor = 1.25
        faces.trackRetention = MediaTime(seconds: 1)
        return faces
    }

    private static func sample(_ image: PixelBuffer, seconds: Double) -> SampleBuffer {
        SampleBuffer(sequence: UInt64(seconds * 30), presentationTime: MediaTime(seconds: seconds), wallClockTime: .now(),
                     formatDescription: VideoFormatDescription(width: image.width, height: image.height, pixelFormat: .gray),
                     imageBuffer: image)
    }

    /// Face centres, in canvas pixels, with their IDs.
    private static func faces(_ objects: [MetadataObject]) -> [(x: Double, y: Double, id: Int)] {
        objects.compactMap { object in
            guard let face = object as? FaceObject else { return nil }
            return (face.bounds.midX * Double(canvas.width), face.bounds.midY * Double(canvas.height), face.faceID)
        }
    }

    @Test func aFollowedFaceIsFoundInItsWindowWhereItMovedAndNothingElseIsSearched() throws {
        let head = try Self.head()
        let pool = BufferPool(count: 4)
        let analysis = try FaceAnalysis(configuration: Self.configuration())
        let interval = MediaTime(seconds: 1)
        func analyse(_ places: [(x: Int, y: Int)], at seconds: Double,
                     moved: ChangedBlocks? = nil) throws -> [(x: Double, y: Double, id: Int)] {
            let image = try Self.canvas(head, at: places, pool: pool)
            return Self.faces(try analysis.detect(in: Self.sample(image, seconds: seconds), rectOfInterest: .unit,
                                                  singleThreaded: true, moved: moved, fullSearchInterval: interval).objects)
        }
        let half = Double(head.side) / 2
        let first = try analyse([(100, 150)], at: 0)
        try #require(first.count == 1, "the whole search finds the head: \(first)")
        #expect(analysis.fullSearches == 1 && analysis.windowSearches == 0)
        #expect(abs(first[0].x - (100 + half)) < half / 2 && abs(first[0].y - (150 + half)) < half / 2)

        // 0.1 s later, moved half a face's width right and down: found there, in its window.
        let moved = try analyse([(100 + head.side / 5, 150 + head.side / 8)], at: 0.1)
        #expect(analysis.windowSearches == 1 && analysis.fullSearches == 1)
        try #require(moved.count == 1, "the window finds the moved head: \(moved)")
        #expect(moved[0].id == first[0].id, "the same face")
        #expect(abs(moved[0].x - (100 + Double(head.side / 5) + half)) < half / 2)
        #expect(abs(moved[0].y - (150 + Double(head.side / 8) + half)) < half / 2)

        // A second head far away, on a frame that moved everywhere (a camera turning: too much
        // to search but whole): windows alone do not see it...
        let shifted = (x: 100 + head.side / 5, y: 150 + head.side / 8)
        let windowed = try analyse([shifted, (700, 150)], at: 0.2, moved: .everywhere)
        #expect(analysis.windowSearches == 2)
        #expect(windowed.count == 1 && windowed.first?.id == first[0].id, "only the followed face: \(windowed)")
        // ...the whole search, one interval after the last, finds both.
        let whole = try analyse([shifted, (700, 150)], at: 1.0)
        #expect(analysis.fullSearches == 2)
        #expect(whole.count == 2, "both heads: \(whole)")
        #expect(whole.contains { $0.x > 700 && $0.x < 700 + Double(head.side) })
    }

    @Test func aFaceAppearingWhereNothingMovedIsFoundByTheNextWholeSearchWithinTheInterval() throws {
        let head = try Self.head()
        let pool = BufferPool(count: 4)
        let analysis = try FaceAnalysis(configuration: Self.configuration())
        var nothingMoved = ChangedBlocks.everywhere
        nothingMoved.clear()
        let interval = MediaTime(seconds: 1)
        // An empty scene searched whole at 0; the head there from 0.1 s on, each analysis told
        // that nothing moved (a change the motion gate missed: too slow, or under its threshold).
        let empty = try Self.canvas(head, at: [], pool: pool)
        #expect(try analysis.detect(in: Self.sample(empty, seconds: 0), rectOfInterest: .unit, singleThreaded: true,
                                    moved: nothingMoved, fullSearchInterval: interval).objects.isEmpty)
        var foundAt: Double?
        for tenth in 1...20 where foundAt == nil {
            let seconds = Double(tenth) / 10
            let image = try Self.canvas(head, at: [(400, 200)], pool: pool)
            let found = Self.faces(try analysis.detect(in: Self.sample(image, seconds: seconds), rectOfInterest: .unit,
                                                       singleThreaded: true, moved: nothingMoved,
                                                       fullSearchInterval: interval).objects)
            if !found.isEmpty { foundAt = seconds }
        }
        let seconds = try #require(foundAt, "the head was never found")
        #expect(seconds >= 0.9 && seconds <= 1.0, "found at \(seconds) s: by the whole search due one interval after the first")
        #expect(analysis.fullSearches == 2)
    }

    @Test func aFaceAppearingWhereTheGateSawMotionIsFoundAtTheNextAnalysis() throws {
        let head = try Self.head()
        let pool = BufferPool(count: 4)
        let analysis = try FaceAnalysis(configuration: Self.configuration())
        var gate = MotionGate(threshold: 4)
        let empty = try Self.canvas(head, at: [], pool: pool)
        let emptyChanged = gate.hasChanged(empty)
        #expect(emptyChanged)
        #expect(try analysis.detect(in: Self.sample(empty, seconds: 0), rectOfInterest: .unit, singleThreaded: true,
                                    moved: gate.changedBlocks, fullSearchInterval: MediaTime(seconds: 1)).objects.isEmpty)
        let withHead = try Self.canvas(head, at: [(400, 200)], pool: pool)
        let headChanged = gate.hasChanged(withHead)
        #expect(headChanged)
        #expect(gate.changedBlocks.fraction < 0.25, "the head is a small part of the frame")
        let found = Self.faces(try analysis.detect(in: Self.sample(withHead, seconds: 0.1), rectOfInterest: .unit,
                                                   singleThreaded: true, moved: gate.changedBlocks,
                                                   fullSearchInterval: MediaTime(seconds: 1)).objects)
        #expect(analysis.windowSearches == 1 && analysis.fullSearches == 1, "not a whole search")
        #expect(found.count == 1, "the head, where it moved in: \(found)")
        #expect(found.allSatisfy { $0.x > 400 && $0.x < 400 + Double(head.side) })
    }
}
