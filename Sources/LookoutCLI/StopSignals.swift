import Dispatch
import Lookout
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The signals Lookout acts on, taken on a thread of their own with sigwaitinfo(2).
///
/// `install()` runs first thing in main(), before any thread exists: it blocks these signals, so
/// every thread inherits the mask and none is lost or acted on by default while the process
/// starts. Linux keeps a blocked signal pending even when it was inherited as ignored (a SIGINT
/// sent to `lookout &` once main has begun is taken when the run is ready; before main, while
/// the program loads, the kernel still discards an ignored one). Children start with no signal
/// blocked (ChildProcess).
///
/// - SIGINT, SIGTERM, SIGQUIT: one clean stop (`onStop`); a second one exits at once with
///   128+N, for when a clean stop itself hangs. One that comes while `run` starts is kept until
///   its stop is ready (or, should start-up not end within `outputDeadline`, exits with 128+N).
///   Commands without a clean stop (`scan`, `devices`) leave every signal to its disposition.
/// - SIGHUP: reloads the configuration file (`onReload`); without `--config`, one line on
///   standard error, otherwise ignored.
/// - SIGUSR1: the statistics summary of every input on standard error, like dd (`onStatistics`).
/// - SIGUSR2, SIGALRM: ignored.
///
/// A clean stop writes every detection already made, which waits on standard output. When its
/// reader has stopped reading, that wait is bounded: `outputDeadline` seconds after the signal,
/// Lookout exits with 128+N as for a second signal, saying so.
enum StopSignals {
    static let stopping: [Int32] = [SIGINT, SIGTERM, SIGQUIT]
    static let others: [Int32] = [SIGHUP, SIGUSR1, SIGUSR2, SIGALRM]

    /// How long a stop may wait for standard output to take the last lines.
    static let outputDeadline = StopDeadline.budget + 0.5

    private struct State {
        var onStop: (@Sendable () -> Void)?
        var onStatistics: (@Sendable () -> Void)?
        var onReload: (@Sendable () -> Void)?
        /// The command has no clean stop: every signal is left to the process's disposition.
        var usesDefaultActions = false
        var stopSignal: Int32?
    }

    private static let state = Mutex(State())
    private static let outputWritten = Atomic<Bool>(false)

    /// Blocks the signals and starts taking them; in main(), before any thread starts.
    static func install() {
        var set = signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // A thread of its own: sigwaitinfo blocks for the process's whole life.
        DispatchQueue(label: "lookout.signals").async {
            var set = signalSet
            while true {
                let number = sigwaitinfo(&set, nil)
                if number > 0 { take(number) }
            }
        }
    }

    /// What a stop signal does from now on (a run's clean stop), SIGUSR1's summary and SIGHUP's
    /// reload (nil: there is no file to reload). A stop signal that came while the run started
    /// stops it now.
    static func handle(onStop: @escaping @Sendable () -> Void, onStatistics: @escaping @Sendable () -> Void,
                       onReload: (@Sendable () -> Void)? = nil) {
        let pending = state.withLock { state -> Int32? in
            state.onStop = onStop
            state.onStatistics = onStatistics
            state.onReload = onReload
            return state.stopSignal
        }
        if let pending { beginStop(pending, onStop: onStop) }
    }

    /// For a command without a clean stop (`scan`, `devices`): every signal here does what it
    /// would without Lookout, from now on and for a stop signal that came while it started.
    static func useDefaultActions() {
        let pending = state.withLock { state -> Int32? in
            state.usesDefaultActions = true
            return state.stopSignal
        }
        if let pending { takeDefaultAction(pending) }
    }

    /// Every line has been written: a stop no longer needs a deadline.
    static func outputFinished() {
        outputWritten.store(true, ordering: .releasing)
    }

    static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGQUIT: "SIGQUIT"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        case SIGALRM: "SIGALRM"
        default: "signal \(number)"
        }
    }

    private static var signalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in stopping + others { sigaddset(&set, number) }
        return set
    }

    private static func take(_ number: Int32) {
        guard !state.withLock({ $0.usesDefaultActions }) else { return takeDefaultAction(number) }
        switch number {
        case SIGHUP:
            if let reload = state.withLock({ $0.onReload }) {
                // Only asks: the reload runs off the signal thread (it opens cameras, and a stop
                // must still be taken meanwhile), one after the other (RunCommand).
                reload()
            } else {
                printDiagnostic("SIGHUP: there is no configuration file to reload (run with --config FILE); ignored", level: .warning)
            }
        case SIGUSR1:
            state.withLock { $0.onStatistics }?()
        case SIGINT, SIGTERM, SIGQUIT:
            stop(number)
        default:
            break // SIGUSR2, SIGALRM
        }
    }

    private static func stop(_ number: Int32) {
        let (onStop, first, usesDefaultActions) = state.withLock { state in
            defer { if state.stopSignal == nil { state.stopSignal = number } }
            return (state.onStop, state.stopSignal == nil, state.usesDefaultActions)
        }
        if usesDefaultActions { return takeDefaultAction(number) } // came in between
        // _exit: other threads are still running, and exit() would run library destructors under them.
        guard first else { _exit(128 + number) }
        if let onStop {
            beginStop(number, onStop: onStop)
        } else {
            // The run is starting: `handle` stops it once it can. A start-up that hangs (a
            // network source that does not answer) must not hold the stop.
            DispatchQueue.global().asyncAfter(deadline: .now() + outputDeadline) {
                guard state.withLock({ $0.onStop == nil && !$0.usesDefaultActions }) else { return }
                printDiagnostic("\(name(of: number)) while starting, and the start did not end within \(outputDeadline) s; exiting")
                _exit(128 + number)
            }
        }
    }

    private static func beginStop(_ number: Int32, onStop: @Sendable () -> Void) {
        StopDeadline.shared.begin()
        onStop()
        DispatchQueue.global().asyncAfter(deadline: .now() + outputDeadline) {
            guard !outputWritten.load(ordering: .acquiring) else { return }
            printDiagnostic("standard output took no lines for \(outputDeadline) s after \(name(of: number)); exiting without writing the rest")
            _exit(128 + number)
        }
    }

    /// What `number` would have done without Lookout's mask, under the disposition the process
    /// has (inherited, or the runtime's): usually the end of the process; nothing when ignored.
    private static func takeDefaultAction(_ number: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
