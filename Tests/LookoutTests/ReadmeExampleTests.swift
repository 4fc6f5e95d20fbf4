import Dispatch
import Synchronization
import Testing
import Lookout

/// The API example of docs/swift-api.md (once the README's), kept compiling and working.
@Suite("README example")
struct ReadmeExampleTests {
    final class Printer: MetadataOutputObjectsDelegate {
        let lines = Locked<[String]>([])
        func metadataOutput(_ output: MetadataOutput, didOutput objects: [MetadataObject],
                            from connection: CaptureConnection) {
            for case let code as MachineReadableCodeObject in objects {
                lines.withLock { $0.append("\(code.type) \(code.stringValue)") }
            }
        }
    }

    @Test func exampleFindsTheSampleCodes() throws {
        let session = CaptureSession()
        try session.addInput(AssetReaderInput(path: Fixtures.path("sample.mjpeg")))
        let metadata = MetadataOutput(faceDetector: FaceDetectorConfiguration(cascadePath: Fixtures.faceModel))
        try session.addOutput(metadata)
        try metadata.setMetadataObjectTypes([.qr, .ean13, .face])
        let printer = Printer()
        metadata.setMetadataObjectsDelegate(printer, queue: DispatchQueue(label: "printer"))
        run(session)
        let lines = printer.lines.withLock { $0 }
        #expect(lines.count == 120)
        #expect(lines.contains("ean13 4006381333931"))
    }
}
