import ArgumentParser
import Dispatch
import Lookout
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Analyse a video stream and write detections as they are found (the default command).",
        discussion: """
            Files are read as fast as the detectors go, so every frame is analysed. With --realtime the \
            input is paced at its frame rate like a camera, and frames the detectors cannot keep up with \
            are dropped (counted in the summary). SIGINT or SIGTERM stops cleanly: every detection \
            already made is written before exit.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "The stream to analyse: an MJPEG or Y4M file, or - for standard input.", valueName: "path|-"))
    var input: String?

    @Flag(name: .long, help: "Behave like a camera: drop frames the detectors cannot keep up with; a file is paced at its frame rate, a pipe taken as it comes.")
    var realtime = false

    @Option(name: .long, help: ArgumentHelp(
        "Frame rate for timing MJPEG input (which carries none; default 30) or to override a Y4M header.",
        valueName: "fps"))
    var fps: Double?

    @OptionGroup(title: "Detection") var detection: DetectionOptions
    @OptionGroup(title: "Output") var output: OutputOptions

    mutating func validate() throws {
        if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps must be above 0 and at most 1000.") }
        guard input != nil else {
            throw ValidationError("No input given: pass --input FILE, or --input - to read standard input.")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let path = input!
        let started = MonotonicClock.nanoseconds()

        let session = CaptureSession()
        let assetInput: AssetReaderInput
        let metadata: MetadataOutput
        do {
            assetInput = try AssetReaderInput(path: path, pacing: realtime ? .realTime : .asFastAsPossible,
                                              frameRate: fps)
            try session.addInput(assetInput)
            metadata = try detection.makeMetadataOutput(in: session)
        } catch {
            throw fail(error)
        }

        let outputClosed = Atomic<Bool>(false)
        let printer = DetectionPrinter(format: output.format, source: path, sink: LineSink(fd: STDOUT_FILENO)) {
            // The reader went away (`| head -1`): stop at once, quietly.
            outputClosed.store(true, ordering: .relaxed)
            DispatchQueue.global().async { session.stopRunning() }
        }
        metadata.setMetadataObjectsDelegate(printer, queue: printer.queue)

        let control = DispatchQueue(label: "lookout.control")
        let stopped = DispatchSemaphore(value: 0)
        let runtimeError = Mutex<CaptureError?>(nil)
        session.setEventHandler(queue: control) { event in
            switch event {
            case .runtimeError(let error):
                runtimeError.withLock { if $0 == nil { $0 = error } }
                DispatchQueue.global().async { session.stopRunning() }
            case .inputDidEnd:
                break
            case .didStopRunning:
                stopped.signal()
            }
        }
        let signals = StopSignals(queue: control) {
            DispatchQueue.global().async { session.stopRunning() }
        }

        session.startRunning()
        stopped.wait()
        signals.cancel()
        printer.queue.sync {}

        if outputClosed.load(ordering: .relaxed) {
            if let failure = printer.sink.failure {
                printDiagnostic("cannot write to standard output: \(failure)")
                throw ExitCode(ExitStatus.failure)
            }
            return
        }
        if let error = runtimeError.withLock({ $0 }) {
            throw fail(error)
        }
        let statistics = metadata.statistics
        let summary = RunSummary(
            source: path, framesRead: session.statistics.framesRead, framesAnalysed: statistics.framesAnalysed,
            drops: statistics.drops, detections: statistics.objectsByType,
            elapsedSeconds: Double(MonotonicClock.nanoseconds() - started) / 1e9)
        if output.stats {
            printer.queue.sync { printer.writeLine(summary.jsonLine()) }
        } else if !output.quiet {
            printDiagnostic(summary.text)
        }
    }
}
