import Dispatch
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a user's command for events (`--on-code`, `--on-presence`), the way motion runs its
/// on_event hooks, but without a shell: the program is started directly with the given argv, the
/// event's JSON line on its standard input and a few fields in the environment
/// (`HookEnvironment`), so nothing in a payload can become shell syntax or an extra argument.
///
/// Hooks run off the capture path, at most `maxConcurrent` at a time; more wait in a bounded
/// queue (oldest dropped, reported). A hook running longer than `timeout` gets SIGTERM, then
/// SIGKILL a second later, with its whole process group. Failures go to `diagnostics`; they never
/// hold up detection. A hook's standard output goes to Lookout's standard error, so it cannot
/// corrupt the JSON lines on standard output.
public final class HookRunner: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var started = 0
        public var failed = 0
        public var timedOut = 0
        public var dropped = 0
    }

    private struct Job {
        var input: [UInt8]
        var environment: [(String, String)]
    }

    private struct State {
        var running = 0
        var pending: BoundedQueue<Job>
        var statistics = Statistics()
        /// The first drop said, then one per hundred: a stuck hook cannot flood stderr.
        var dropWarning = DropWarning(every: 100)
        /// Children not yet reaped (a reaped pid could be reused: it leaves the set first).
        var children: Set<pid_t> = []
    }

    /// The option that set the hook, for messages ("--on-code").
    public let name: String
    /// The argv, with the program resolved to a path.
    public let arguments: [String]
    public let timeout: Double
    public let maxConcurrent: Int
    private let logger: Logger
    private let state: Locked<State>
    private let finished = DispatchSemaphore(value: 0)

    public convenience init(name: String, command: [String], timeout: Double = 10, maxConcurrent: Int = 4, maxPending: Int = 100,
                            diagnostics: @escaping @Sendable (String) -> Void) throws(HookError) {
        try self.init(name: name, command: command, timeout: timeout, maxConcurrent: maxConcurrent, maxPending: maxPending,
                      logger: DiagnosticsLogHandler.logger("lookout.hooks", diagnostics))
    }

    /// A hook that cannot be started is an error; one that fails, times out or is dropped, a warning.
    public init(name: String, command: [String], timeout: Double = 10, maxConcurrent: Int = 4, maxPending: Int = 100,
                logger: Logger) throws(HookError) {
        guard let program = command.first, !program.isEmpty else { throw HookError.emptyCommand }
        self.name = name
        self.arguments = [try Self.resolve(program)] + command.dropFirst()
        // DispatchTime traps on times it cannot hold: a day at most, a millisecond at least.
        self.timeout = timeout >= 0.001 ? min(timeout, 86_400) : 0.001
        self.maxConcurrent = max(1, maxConcurrent)
        self.logger = logger
        self.state = Locked(State(pending: BoundedQueue(capacity: max(1, maxPending))))
    }

    /// Finds a program as execvp(3) would: a name with a slash as it is, any other on $PATH.
    static func resolve(_ program: String) throws(HookError) -> String {
        if program.contains("/") {
            var info = stat()
            guard program.withPlatformPath({ stat($0, &info) }) == 0 else { throw .notExecutable(path: program, .current) }
            // access() says yes to a directory with x bits; a hook must be a program to run.
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw .notExecutable(path: program, Errno(rawValue: (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EACCES))
            }
            guard program.withPlatformPath({ access($0, X_OK) }) == 0 else { throw .notExecutable(path: program, .current) }
            return program
        }
        if let found = ChildProcess.findOnPath(program) { return found }
        throw .commandNotFound(program)
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Runs the hook for one event, now or when a slot frees up. Returns at once.
    public func run(input: [UInt8], environment: [(String, String)]) {
        let job = Job(input: input, environment: environment)
        let (startNow, droppedSoFar) = state.withLock { state -> (Bool, Int?) in
            if state.running < maxConcurrent {
                state.running += 1
                return (true, nil)
            }
            guard state.pending.append(job) else { return (false, nil) }
            state.statistics.dropped += 1
            return (false, state.dropWarning.shouldSay(state.statistics.dropped) ? state.statistics.dropped : nil)
        }
        if startNow {
            DispatchQueue.global().async { [self] in execute(job) }
        } else if let droppedSoFar {
            logger.warning("hook \(name): \(maxConcurrent) still running and the queue is full; dropped the oldest waiting event (\(droppedSoFar) so far)")
        }
    }

    /// Waits until every started and waiting hook has finished, for at most `timeout` seconds.
    /// Returns false on timeout.
    @discardableResult
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = DispatchTime.fromNow(seconds: timeout)
        while state.withLock({ $0.running > 0 }) {
            if finished.wait(timeout: deadline) == .timedOut { return false }
        }
        return true
    }

    /// Stops every hook still running (SIGTERM to its process group, as at its timeout) and
    /// forgets the waiting ones: the process is exiting and would otherwise leave them behind.
    /// Returns how many were running.
    @discardableResult
    public func terminateRunning() -> Int {
        state.withLock { state in
            while state.pending.popFirst() != nil { state.statistics.dropped += 1 }
            for pid in state.children { kill(-pid, SIGTERM) }
            return state.children.count
        }
    }

    // MARK: Worker threads

    private func execute(_ first: Job) {
        var job: Job? = first
        while let current = job {
            runOnce(current)
            job = state.withLock { state -> Job? in
                if let next = state.pending.popFirst() { return next }
                state.running -= 1
                return nil
            }
        }
        finished.signal()
    }

    private func runOnce(_ job: Job) {
        state.withLock { $0.statistics.started += 1 }
        let pid: pid_t
        do throws(Errno) {
            pid = try spawnRetryingBusy(job)
        } catch {
            state.withLock { $0.statistics.failed += 1 }
            logger.error("hook \(name): cannot start \(arguments[0]): \(error)")
            return
        }
        state.withLock { _ = $0.children.insert(pid) }
        let exited = Locked(false)
        let timedOut = Atomic<Bool>(false)
        // The child stays a zombie until reaped below, so its pid (and group) cannot be reused
        // while these timers may still signal it.
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            exited.withLock { done in
                guard !done else { return }
                timedOut.store(true, ordering: .relaxed)
                kill(-pid, SIGTERM)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                exited.withLock { done in if !done { kill(-pid, SIGKILL) } }
            }
        }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        exited.withLock { $0 = true }
        state.withLock { _ = $0.children.remove(pid) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}

        let signalled = status & 0x7f
        if timedOut.load(ordering: .relaxed) {
            state.withLock { $0.statistics.timedOut += 1; $0.statistics.failed += 1 }
            logger.warning("hook \(name): \(arguments[0]) did not finish within \(timeout.formatted(maxFractionDigits: 1)) s; stopped it")
        } else if signalled != 0 {
            state.withLock { $0.statistics.failed += 1 }
            logger.warning("hook \(name): \(arguments[0]) was killed by signal \(signalled)")
        } else if (status >> 8) & 0xff != 0 {
            state.withLock { $0.statistics.failed += 1 }
            logger.warning("hook \(name): \(arguments[0]) exited with status \((status >> 8) & 0xff)")
        }
    }

    /// A program being written (a deploy replacing the hook) cannot be run for a moment
    /// (ETXTBSY): tried again a few times over half a second rather than the event lost.
    private func spawnRetryingBusy(_ job: Job) throws(Errno) -> pid_t {
        for _ in 1..<5 {
            do throws(Errno) {
                return try spawn(job)
            } catch where error.rawValue == ETXTBSY {
                usleep(100_000)
            }
        }
        return try spawn(job)
    }

    private func spawn(_ job: Job) throws(Errno) -> pid_t {
        let (pid, writeEnd) = try ChildProcess.withSpawnLock { () throws(Errno) -> (pid_t, Int32) in
            let (readEnd, writeEnd) = try ChildProcess.makePipe()
            defer { close(readEnd) }
            do throws(Errno) {
                // The hook's standard output goes where Lookout's diagnostics go.
                let pid = try ChildProcess.spawn(arguments: arguments, environment: environmentStrings(adding: job.environment),
                                                 descriptors: [(STDIN_FILENO, readEnd), (STDOUT_FILENO, STDERR_FILENO)])
                return (pid, writeEnd)
            } catch let failure {
                close(writeEnd)
                throw failure
            }
        }
        defer { close(writeEnd) }
        // The payload is small (a few KB at most) and fits the pipe; a hook that never reads its
        // input must not block this thread, so the write is non-blocking and gives up on EAGAIN.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        // A hook that exits without reading its input leaves the pipe without a reader: the write
        // fails with EPIPE, and the SIGPIPE it raises must not end a process that did not ignore
        // the signal (the command line does; a program using the library may not).
        ChildProcess.withoutSIGPIPE {
            var offset = 0
            while offset < job.input.count {
                let n = job.input.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, $0.count - offset) }
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
        return pid
    }

    /// Lookout's environment with the event's variables set (replacing any of the same name).
    private func environmentStrings(adding variables: [(String, String)]) -> [String] {
        let names = Set(variables.map { $0.0 })
        return ChildProcess.currentEnvironment.filter { text in
            !names.contains(text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text)
        } + variables.map { $0.0 + "=" + $0.1 }
    }
}
