import ArgumentParser
import Lookout
import LookoutService
#if canImport(Glibc)
import Glibc
#endif

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Find codes and faces in still images (JPEG, PNG, PGM, ...), like zbarimg.",
        discussion: "Each image is one frame; `frame` counts the images from 0. Files that cannot be read are reported and skipped; the exit status is then 66 (missing or unreadable) or 1 (not an image).")

    @Argument(help: ArgumentHelp("Images to scan.", valueName: "file"))
    var files: [String]

    @OptionGroup(title: "Detection") var detection: DetectionOptions
    @OptionGroup(title: "Output") var output: OutputOptions

    mutating func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one image to scan.") }
    }

    func run() throws {
        showsLibraryDetail = output.verbose
        if let level = output.logLevel { DiagnosticOutput.level = level }
        let session = CaptureSession()
        let metadata: MetadataOutput
        do {
            metadata = try DetectionSetup.makeMetadataOutput(try detection.settings(), in: session, profile: .stills)
        } catch let error as CaptureError {
            throw fail(error)
        }
        let sink = LineSink(fd: StandardDescriptors.outputDescriptor)
        var status = ExitStatus.success
        var found = 0, scanned = 0
        for (index, file) in files.enumerated() {
            let image: PixelBuffer
            do {
                image = try StillImage.load(path: file, budget: detection.pixelBudget, capturesLibraryMessages: true)
            } catch {
                _ = fail(.input(error))
                let code = ExitStatus.code(for: .input(error))
                if status == ExitStatus.success || code == ExitStatus.noInput { status = code }
                continue
            }
            scanned += 1
            let objects = metadata.metadataObjects(in: image, sequence: UInt64(index))
            found += objects.count
            var json = DetectionLineEncoder(source: file)
            let text = TextLineEncoder()
            for object in objects {
                sink.append((output.format ?? .json) == .json ? json.encode(object) : text.encode(object))
            }
            if !sink.flush() {
                if let failure = sink.failure {
                    printDiagnostic("cannot write to standard output: \(failure)")
                    throw ExitCode(ExitStatus.failure)
                }
                return // the reader went away
            }
        }
        // Files that could not be read have said so already, one line each.
        if !output.quiet, !output.stats, scanned > 0 {
            printDiagnostic("scanned \(scanned) image\(scanned == 1 ? "" : "s"), \(found) detection\(found == 1 ? "" : "s")", level: .notice)
        }
        if status != ExitStatus.success { throw ExitCode(status) }
    }
}
