import Foundation
import Testing
@testable import Lookout

@Suite("Photo output")
struct PhotoOutputTests {
    final class Photos: PhotoCaptureDelegate, @unchecked Sendable {
        let received = Locked<[(photo: CapturePhoto?, error: CaptureError?)]>([])
        let arrived = DispatchSemaphore(value: 0)
        func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto photo: CapturePhoto?, error: CaptureError?) {
            received.withLock { $0.append((photo, error)) }
            arrived.signal()
        }
    }

    /// A running session on `clip` (paced like a camera) with a metadata output and a photo output.
    static func running(_ clip: String) throws -> (CaptureSession, PhotoOutput, MetadataOutput) {
        let (session, metadata) = try Fixtures.metadataOutput()
        try session.addInput(try AssetReaderInput(path: clip.hasPrefix("/") ? clip : Fixtures.path(clip), pacing: .realTime))
        let photos = PhotoOutput()
        try session.addOutput(photos)
        session.startRunning()
        return (session, photos, metadata)
    }

    @Test func aPhotoIsTheNextFrameAsJPEGWithTheObjectsFoundInIt() throws {
        // The sample three times over (6 s): frames to spare once every kind has been found.
        let sample = try Fixtures.bytes("sample.mjpeg")
        let clip = temporaryClip(sample + sample + sample)
        defer { unlink(clip) }
        let (session, output, metadata) = try Self.running(clip)
        defer { session.stopRunning() }
        #expect(eventually { [.qr, .ean13, .face].allSatisfy { (metadata.statistics.objectsByType[$0] ?? 0) > 0 } },
                "\(metadata.statistics.objectsByType)")
        let delegate = Photos()
        output.capturePhoto(with: PhotoSettings(), delegate: delegate)
        output.capturePhoto(with: PhotoSettings(drawsMetadataObjects: true, maximumHeight: 360), delegate: delegate)
        for _ in 0..<2 { #expect(delegate.arrived.wait(timeout: .now() + 60) == .success) }
        let photos = delegate.received.withLock { $0 }.compactMap(\.photo)
        try #require(photos.count == 2)
        let plain = try #require(photos.first { !$0.resolvedSettings.drawsMetadataObjects })
        let drawn = try #require(photos.first { $0.resolvedSettings.drawsMetadataObjects })
        #expect(plain.sequence == drawn.sequence, "both requests are served by the same frame")
        // An MJPEG frame taken as it is: the camera's own bytes.
        let bytes = plain.fileDataRepresentation()
        #expect(bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2) == [0xFF, 0xD9])
        #expect(try bytes.withUnsafeBytes { try JPEGDecoder().size(of: $0) } == (1280, 720))
        #expect(try drawn.fileDataRepresentation().withUnsafeBytes { try JPEGDecoder().size(of: $0) } == (640, 360))
        let types = Set(plain.metadataObjects.map(\.type))
        #expect(types == [.qr, .ean13, .face], "\(types)")
        #expect(plain.metadataObjects.allSatisfy { $0.frameSequence <= plain.sequence })
        #expect(plain.metadataObjects.filter(\.type.isMachineReadableCode).allSatisfy { $0.frameSequence == plain.sequence },
                "codes are those of the photo's frame")
    }

    @Test func aRawFrameBecomesAColourJPEGOfItsSize() throws {
        // The fixture's two frames, fifteen times over: three seconds at 10 fps.
        let y4m = try Fixtures.bytes("qr-420.y4m")
        let header = y4m.prefix { $0 != 0x0A } + [0x0A]
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-\(UUID().uuidString).y4m")
        try Data(header + Array([[UInt8]](repeating: Array(y4m.dropFirst(header.count)), count: 15).joined())).write(to: clip)
        defer { try? FileManager.default.removeItem(at: clip) }
        let (session, output, metadata) = try Self.running(clip.path)
        defer { session.stopRunning() }
        #expect(eventually { (metadata.statistics.objectsByType[.qr] ?? 0) > 0 }, "no code found")
        let delegate = Photos()
        output.capturePhoto(with: PhotoSettings(drawsMetadataObjects: true), delegate: delegate)
        #expect(delegate.arrived.wait(timeout: .now() + 60) == .success)
        let photo = try #require(delegate.received.withLock { $0.first?.photo })
        let size = try photo.fileDataRepresentation().withUnsafeBytes { try JPEGDecoder().size(of: $0) }
        #expect(size == (photo.width, photo.height))
        #expect(photo.metadataObjects.contains { $0.type == .qr })
    }

    @Test func withoutARunningSessionTheDelegateHearsWhy() throws {
        let output = PhotoOutput()
        let delegate = Photos()
        output.capturePhoto(with: PhotoSettings(), delegate: delegate)
        #expect(delegate.arrived.wait(timeout: .now() + 30) == .success)
        #expect(delegate.received.withLock { $0.first?.error } != nil)
    }

    @Test func aRequestNoFrameServesHearsWhyWhenTheSessionStops() throws {
        // A camera that sends nothing: the request can only end with the session.
        let driver = ScriptedV4L2Driver(script: Array(repeating: .silence, count: 100))
        let session = CaptureSession()
        try session.addInput(try CaptureDeviceInput(device: try CaptureDevice(path: "/dev/scripted0", driver: driver),
                                                    watchdogTimeout: 5))
        let output = PhotoOutput()
        try session.addOutput(output)
        session.startRunning()
        let delegate = Photos()
        output.capturePhoto(with: PhotoSettings(), delegate: delegate)
        session.stopRunning()
        #expect(delegate.arrived.wait(timeout: .now() + 30) == .success, "the delegate is told, not left waiting")
        let answer = delegate.received.withLock { $0.first }
        #expect(answer?.photo == nil && answer?.error != nil)
    }

    @Test func nobodyAskingCostsNoPictures() throws {
        let (session, output, _) = try Self.running("sample.mjpeg")
        #expect(eventually { session.statistics.framesRead > 5 })
        session.stopRunning()
        #expect(output.droppedFrames.total > 0, "without a request the photo output takes no frame")
        #expect(session.statistics.picturesCopied == 0, "no picture copied while nobody asks")
        #expect(session.statistics.framesRead > 5)
    }
}
