import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// One running `ffmpeg` that writes a YUV4MPEG2 stream on a pipe: its pid, the pipe's reader, and
/// the last lines it wrote on standard error (kept off Lookout's standard output; shown when it
/// fails).
final class FFmpegProcess: Sendable {
    let pid: pid_t
    let output: FileDescriptorReader
    private let errorLines = Locked<[String]>([])
    private let errorDone = DispatchSemaphore(value: 0)
    /// The wait status, once reaped.
    private let status = Locked<Int32?>(nil)
    /// Lines of standard error kept, the newest last: enough to hold the line that says why
    /// (ffmpeg follows it with advice and with what failed after it).
    static let keptErrorLines = 8

    /// Starts `arguments` (the first the program's path), its standard input /dev/null.
    init(arguments: [String], name: String) throws(Errno) {
        let (childPid, outputEnd, errorEnd) = try ChildProcess.withSpawnLock { () throws(Errno) -> (pid_t, Int32, Int32) in
            let output = try ChildProcess.makePipe()
            let diagnostics: (read: Int32, write: Int32)
            do throws(Errno) { diagnostics = try ChildProcess.makePipe() } catch let failure {
                close(output.read); close(output.write)
                throw failure
            }
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            defer {
                close(output.write)
                close(diagnostics.write)
                if null >= 0 { close(null) }
            }
            do throws(Errno) {
                let pid = try ChildProcess.spawn(arguments: arguments, environment: ChildProcess.currentEnvironment,
                                                 descriptors: [(STDIN_FILENO, null >= 0 ? null : output.write),
                                                               (STDOUT_FILENO, output.write), (STDERR_FILENO, diagnostics.write)])
                return (pid, output.read, diagnostics.read)
            } catch let failure {
                close(output.read); close(diagnostics.read)
                throw failure
            }
        }
        pid = childPid
        let reader: FileDescriptorReader
        do throws(MediaError) {
            reader = try FileDescriptorReader(descriptor: outputEnd, path: name)
        } catch {
            close(errorEnd)
            _ = Glibc.kill(-childPid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(childPid, &status, 0)
            // Its only failure: no descriptors left for its cancellation pipe.
            if case .unreadable(_, let cause) = error { throw cause }
            throw Errno(rawValue: EMFILE)
        }
        output = reader
        let lines = errorLines
        let done = errorDone
        // Reads standard error until ffmpeg closes it (it exits): a blocking read on a thread of its own.
        DispatchQueue(label: "lookout.ffmpeg.stderr").async {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(errorEnd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: 0x0A) {
                    Self.keep(Array(pending[..<newline]), in: lines)
                    pending.removeSubrange(...newline)
                }
                if pending.count > 4096 { Self.keep(pending, in: lines); pending.removeAll() }
            }
            if !pending.isEmpty { Self.keep(pending, in: lines) }
            close(errorEnd)
            done.signal()
        }
    }

    private static func keep(_ bytes: [UInt8], in lines: Locked<[String]>) {
        let text = String(decoding: bytes.prefix(300), as: UTF8.self).trimmingCharacters(in: " \r\t")
        guard !text.isEmpty else { return }
        lines.withLock {
            $0.append(text)
            if $0.count > keptErrorLines { $0.removeFirst() }
        }
    }

    /// What ffmpeg said last on standard error (once it has exited: all of it), the newest last.
    var errors: [String] {
        errorLines.withLock { $0 }
    }

    /// Stops ffmpeg and everything it started (SIGKILL to its process group). Any thread.
    func kill() {
        _ = Glibc.kill(-pid, SIGKILL)
    }

    /// Waits for ffmpeg to exit and returns its wait status; its standard error is read to the end.
    @discardableResult
    func reap() -> Int32 {
        if let status = status.withLock({ $0 }) { return status }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // stderr closes when ffmpeg exits; a grandchild holding it is not waited for long.
        _ = errorDone.wait(timeout: .fromNow(seconds: 1))
        self.status.withLock { $0 = status }
        return status
    }

    /// True when ffmpeg exited by itself with status 0.
    static func succeeded(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let drop: (Character) -> Bool = { set.contains($0) }
        return String(self.drop(while: drop).reversed().drop(while: drop).reversed())
    }
}
