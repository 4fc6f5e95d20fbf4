import Foundation
import Testing
@testable import Lookout

/// The options that tune faces change what is found, and the profile cascade's second opinion.
@Suite("Face tuning")
struct FaceTuningTests {
    static let models = Fixtures.packageRoot + "/models/"

    /// `--min-neighbors` sets how sure a face must be for the cascade and, four times it, for the
    /// verifier: at 1 the coins' likeliest false faces pass both; at the default none does; an
    /// explicit `--verify-neighbors` still overrides the verifier's share.
    @Test func minNeighborsIsTheKnob() throws {
        let coins = Fixtures.path("noface-coins.png")
        let loose = try lookout(["scan", "--types", "face", "--min-neighbors", "1", coins])
        #expect(loose.status == 0 && loose.lines.count == 2)
        let defaults = try lookout(["scan", "--types", "face", coins])
        #expect(defaults.status == 0 && defaults.lines.isEmpty)
        let strictVerifier = try lookout(["scan", "--types", "face", "--min-neighbors", "1", "--verify-neighbors", "12", coins])
        #expect(strictVerifier.status == 0 && strictVerifier.lines.isEmpty)
    }

    /// A candidate the verifier refuses is kept when the profile cascade finds a face around it,
    /// the picture either way round; without the profile cascade it is dropped.
    @Test(arguments: [false, true]) func theProfileCascadeConfirmsWhatTheVerifierRefused(mirrored: Bool) throws {
        var picture = try StillImage.load(path: Fixtures.path("frame0.jpg"))
        if mirrored { picture = try Self.mirror(picture) }
        var configuration = FaceDetectorConfiguration(cascadePath: Self.models + "haarcascade_frontalface_default.xml")
        configuration.verificationCascadePath = Self.models + "haarcascade_frontalface_alt2.xml"
        configuration.verificationMinNeighbors = 1000 // refuses every candidate
        let region = (x: 0, y: 0, width: picture.width, height: picture.height)
        let refused = try FaceDetector(configuration: configuration).detect(picture, region: region)
        #expect(refused.isEmpty)
        configuration.profileVerificationCascadePath = Self.models + "haarcascade_profileface.xml"
        configuration.profileVerificationMinNeighbors = 1
        let confirmed = try FaceDetector(configuration: configuration).detect(picture, region: region)
        var expected = try Fixtures.sampleExpectation().faceBox
        if mirrored { expected.x = Double(picture.width) - expected.x - expected.width }
        #expect(confirmed.count == 1)
        #expect(confirmed.contains { $0.intersectionOverUnion(expected) > 0.4 })
    }

    /// The verifier's joined whole-picture search adds no second box for a face both cascades
    /// find, and no face on the coins; off, the sample face is still the one found.
    @Test func theJoinedSearchAddsNoDuplicateNorFalseFace() throws {
        let expected = try Fixtures.sampleExpectation().faceBox
        for join in ["--face-join", "--no-face-join"] {
            let objects = try jsonObjects(try lookout(["scan", "--types", "face", join, Fixtures.path("frame0.jpg")]))
            #expect(objects.count == 1, "\(join)")
            let box = try #require(objects.first?["pixel_bounds"] as? [String: Double])
            #expect(Rect(x: box["x"] ?? 0, y: box["y"] ?? 0, width: box["width"] ?? 0, height: box["height"] ?? 0)
                .intersectionOverUnion(expected) > 0.4)
        }
        let coins = try lookout(["scan", "--types", "face", "--face-join", Fixtures.path("noface-coins.png")])
        #expect(coins.status == 0 && coins.lines.isEmpty)
    }

    @Test func aMissingProfileModelIsNamed() throws {
        let result = try lookout(["scan", "--types", "face", "--face-profile", "/nonexistent/profile.xml", Fixtures.path("frame0.jpg")])
        #expect(result.status != 0 && result.stderr.contains("/nonexistent/profile.xml"))
    }

    /// `image` flipped left to right, in a buffer of its own.
    static func mirror(_ image: PixelBuffer) throws -> PixelBuffer {
        let pool = BufferPool(count: 1)
        let index = try #require(pool.acquire(capacity: image.width * image.height, wait: false))
        let out = pool.pointer(index).assumingMemoryBound(to: UInt8.self)
        for y in 0..<image.height {
            for x in 0..<image.width { out[y * image.width + x] = image[image.width - 1 - x, y] }
        }
        return PixelBuffer(width: image.width, height: image.height, bytesPerRow: image.width, 
                           pool: pool, poolIndex: index)
    }
}
