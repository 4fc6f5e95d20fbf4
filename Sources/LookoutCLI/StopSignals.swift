import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into one clean stop; a second signal exits at once (status 130/143)
/// for when a clean stop itself hangs.
///
/// A clean stop writes every detection already made, which waits on standard output. When its
/// reader has stopped reading, that wait is bounded: `outputDeadline` seconds after the signal,
/// Lookout exits with 130/143 as for a second signal, saying so.
final class StopSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let outputWritten = Atomic<Bool>(false)

    /// How long a stop may wait for standard output to take the last lines.
    static let outputDeadline = 5.0

    init(queue: DispatchQueue, onStop: @escaping @Sendable () -> Void) {
        var received = false
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                // _exit: other threads are still running, and exit() would run library destructors
                // under them.
                if received { _exit(128 + number) }
                received = true
                onStop()
                queue.asyncAfter(deadline: .now() + Self.outputDeadline) { [self] in
                    guard !outputWritten.load(ordering: .acquiring) else { return }
                    printDiagnostic("standard output took no lines for \(Int(Self.outputDeadline)) s after \(number == SIGINT ? "SIGINT" : "SIGTERM"); exiting without writing the rest")
                    _exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops listening; a stop already under way keeps its deadline until `outputFinished()`.
    func cancel() {
        for source in sources { source.cancel() }
    }

    /// Every line has been written: a stop no longer needs a deadline.
    func outputFinished() {
        outputWritten.store(true, ordering: .releasing)
    }
}
