import Foundation
import Testing

/// A thread-safe list of the lines a process wrote, read as they arrive.
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var collected: [String] = []
    private var ended = false, cutLine = false

    /// Reads the pipe to its end on a thread of its own, from a copy of its descriptor that the
    /// thread closes: not through a dispatch source, which libdispatch on Linux crashed on when the
    /// Pipe was released (its descriptor closed and reused) before the end came.
    func attach(_ pipe: Pipe) {
        let fd = fcntl(pipe.fileHandleForReading.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else {
            Issue.record("cannot copy a pipe's descriptor: \(String(cString: strerror(errno)))")
            finish()
            return
        }
        let reader = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                append(chunk[0..<count])
            }
            close(fd)
            finish()
        }
        reader.name = "test pipe reader"
        reader.start()
    }

    private func append(_ data: ArraySlice<UInt8>) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(contentsOf: data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            collected.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    private func finish() {
        lock.lock()
        defer { lock.unlock() }
        if !buffer.isEmpty { collected.append(String(decoding: buffer, as: UTF8.self)); buffer.removeAll(); cutLine = true }
        ended = true
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    /// The writer closed its end and every byte has been collected.
    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    /// The output ended inside a line: its last line has no newline.
    var endedMidLine: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cutLine
    }

    /// Waits until `condition` holds for the lines so far; false after `timeout` seconds.
    func wait(timeout: Double, until condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(lines)
    }
}

/// A program started in the background, with its output collected line by line.
///
/// Started with posix_spawn and an empty signal mask: test-runner threads block most signals,
/// and Foundation's Process passes that mask on, so SIGTERM would never reach the child.
/// Writes to a child that has exited must fail with EPIPE, not end the test process: every helper
/// that writes to a child's input touches this first (suites run in any order, in parallel).
let brokenPipesIgnored: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

final class BackgroundProcess {
    let pid: pid_t
    let executable: String
    let output = LineCollector()
    let errors = LineCollector()
    private let input = Pipe()
    /// Kept for the life of the process: a released Pipe closes its reading end.
    private let outputPipe = Pipe(), errorPipe = Pipe()
    private var status: Int32?
    /// The scratch state directory (`XDG_STATE_HOME`) given to the child, removed with it.
    private let stateHome: ScratchStateHome

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], withInput: Bool = false) throws {
        self.executable = executable
        // A child that dies while being written to must not kill the test process.
        _ = brokenPipesIgnored
        let out = outputPipe, err = errorPipe
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if withInput {
            posix_spawn_file_actions_adddup2(&actions, input.fileHandleForReading.fileDescriptor, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, out.fileHandleForWriting.fileDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, err.fileHandleForWriting.fileDescriptor, 2)
        // Only the three standard descriptors go to the child: the test process's others (files
        // and FIFOs other tests hold, opened without close-on-exec by Foundation) are closed in it.
        let standard = Set([input.fileHandleForReading, out.fileHandleForWriting, err.fileHandleForWriting].map(\.fileDescriptor))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2, !standard.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        for fd in [input.fileHandleForWriting, input.fileHandleForReading, out.fileHandleForReading, out.fileHandleForWriting,
                   err.fileHandleForReading, err.fileHandleForWriting].map(\.fileDescriptor) {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        startWithDefaultSignals(&attributes)
        // A process group of its own: a test that gives up on the child kills what it started too
        // (hooks, ffmpeg), not only the child, and leaves no grandchild behind.
        posix_spawnattr_setpgroup(&attributes, 0)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETPGROUP))
        stateHome = ScratchStateHome(environment)
        let environmentList = stateHome.environment.map { "\($0)=\($1)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environmentList.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        try input.fileHandleForReading.close()
        try #require(code == 0, "cannot start \(executable): \(String(cString: strerror(code)))")
        self.pid = pid
        output.attach(out)
        errors.attach(err)
    }

    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = Self.exitStatus(raw)
            return false
        }
        return true
    }

    func write(_ data: Data) throws { try input.fileHandleForWriting.write(contentsOf: data) }

    func closeInput() throws { try input.fileHandleForWriting.close() }

    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// Waits for the exit and returns the status (128 + signal when killed); kills the process and
    /// records an issue after `timeout` seconds.
    @discardableResult
    func waitForExit(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if isRunning {
            Issue.record("\(executable) did not exit within \(timeout) s")
            kill(-pid, SIGKILL) // not reaped: still its group's number
            reap()
        }
        // Every line written before the exit, collected: both pipes read to their end (a child the
        // process left behind may hold them open; then what arrived within 10 s).
        _ = output.wait(timeout: 10) { _ in output.isFinished && errors.isFinished }
        return status ?? -1
    }

    deinit {
        // Not reaped yet, so its number is still its group's (no other process can have it): what
        // it started and left running goes with it.
        if status == nil { kill(-pid, SIGKILL) }
        reap()
    }

    /// Waits for the child's exit (it was killed) and records its status.
    private func reap() {
        guard status == nil else { return }
        var raw: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &raw, 0) } while reaped < 0 && errno == EINTR
        status = reaped == pid ? Self.exitStatus(raw) : -1
    }

    /// A wait status as a shell gives it: the exit code, or 128 + the signal that killed it.
    private static func exitStatus(_ raw: Int32) -> Int32 {
        (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }
}

/// The runner's variables a child may see: where programs, libraries and scratch files are, and
/// the locale. Nothing else of the runner's environment reaches a child (a test run under systemd
/// or by hand must not hand it `NOTIFY_SOCKET`, `STATE_DIRECTORY`, `LOOKOUT_CONFIG`, ...).
let inheritedVariables: Set<String> = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "LD_LIBRARY_PATH", "TZ", "USER"]

/// A child's environment: `inheritedVariables` from `runner` (the test process's own), then `given`.
func childEnvironment(_ given: [String: String], runner: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
    runner.filter { inheritedVariables.contains($0.key) }.merging(given) { $1 }
}

/// A child's own state directory (`XDG_STATE_HOME`, a scratch folder) unless the test gives one:
/// Lookout keeps each camera's MQTT outbox there, locked; children running at the same time must
/// not share it, nor write to the real home.
final class ScratchStateHome {
    /// The child's whole environment: `childEnvironment(given)` with the scratch state home.
    let environment: [String: String]
    private let path: String?

    init(_ given: [String: String]) {
        if given["XDG_STATE_HOME"] != nil || given["STATE_DIRECTORY"] != nil {
            path = nil
            environment = childEnvironment(given)
        } else {
            let path = NSTemporaryDirectory() + "lookout-test-state-\(UUID().uuidString)"
            self.path = path
            environment = childEnvironment(given.merging(["XDG_STATE_HOME": path]) { $1 })
        }
    }

    deinit {
        if let path { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Spawn attributes for a child that starts with every signal unblocked and at its default
/// action: test-runner threads block most signals, and a child would inherit that.
func startWithDefaultSignals(_ attributes: inout posix_spawnattr_t) {
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number in Int32(1)..<32 where number != SIGKILL && number != SIGSTOP { sigaddset(&defaults, number) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
}

/// Waits until `condition` holds, looking every `interval` seconds (a few milliseconds, or more
/// for a look that starts a process); false after `timeout` seconds. For an event with no
/// notification of its own: the deadline is generous, not a measure.
func eventually(timeout: Double = 60, every interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}

/// `eventually` for what needs Swift's pool to happen (a task the test started): it suspends
/// between looks instead of holding one of the pool's few threads.
func eventuallyAwaiting(timeout: Double = 60, every interval: Double = 0.01, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .seconds(interval))
    }
    return try condition()
}
