import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into one clean stop; a second signal exits at once (status 130/143)
/// for when a clean stop itself hangs.
final class StopSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(queue: DispatchQueue, onStop: @escaping @Sendable () -> Void) {
        var received = false
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received { exit(128 + number) }
                received = true
                onStop()
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
