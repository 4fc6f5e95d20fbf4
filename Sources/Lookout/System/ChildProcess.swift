#if canImport(Glibc)
import Glibc
#endif

/// Starting helper programs (hooks, ffmpeg) with posix_spawn: their descriptors as given, the
/// default signal dispositions, nothing blocked, in a process group of their own (so stopping
/// one stops all it started).
enum ChildProcess {
    /// Serializes making pipes and spawning: pipe2(2) does not import, so close-on-exec is set
    /// after pipe(2), and a child spawned in between would inherit the other end (and its reader
    /// would never see end of input).
    private static let spawnLock = Locked(())

    /// Runs `body` (which makes pipes and spawns) with no other spawn in between.
    static func withSpawnLock<T>(_ body: () throws(Errno) -> T) throws(Errno) -> T {
        try spawnLock.withLock { _ throws(Errno) in try body() }
    }

    /// A pipe whose both ends are close-on-exec; call inside `withSpawnLock`.
    /// Runs `body` (writes to a pipe whose reader may be gone) with SIGPIPE blocked on this thread,
    /// and takes a SIGPIPE it raised before unblocking: the write fails with EPIPE instead, and
    /// the process's disposition of the signal is left as it was. A pipe's SIGPIPE goes to the
    /// thread that wrote.
    static func withoutSIGPIPE(_ body: () -> Void) {
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        body()
        var pending = sigset_t()
        if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1, sigismember(&previous, SIGPIPE) == 0 {
            var now = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    static func makePipe() throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .current }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    /// Spawns `arguments` (the first a path) with `environment` ("NAME=value"), its descriptors
    /// 0, 1 and 2 made from `descriptors` (child number, parent descriptor). Call inside
    /// `withSpawnLock`. Returns the child's pid.
    static func spawn(arguments: [String], environment: [String], descriptors: [(child: Int32, parent: Int32)]) throws(Errno) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (child, parent) in descriptors { posix_spawn_file_actions_adddup2(&actions, parent, child) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Lookout ignores SIGPIPE and handles SIGINT/SIGTERM itself; a child starts with the defaults.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        // Arguments as their bytes were given (see String(platformPath:)).
        let argv = arguments.map { $0.withPlatformPath { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, envp)
        guard code == 0 else { throw Errno(rawValue: code) }
        return pid
    }

    /// Lookout's own environment, "NAME=value" each.
    static var currentEnvironment: [String] {
        var result: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            result.append(String(cString: pointer))
            entry += 1
        }
        return result
    }

    /// Finds a program as execvp(3) would: a name with a slash as it is, any other on $PATH.
    /// Nil when there is no such program file.
    static func findOnPath(_ program: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}
