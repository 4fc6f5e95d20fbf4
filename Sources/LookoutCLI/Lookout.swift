import ArgumentParser
import Logging
#if canImport(Glibc)
import Glibc
#endif

@main
struct Lookout: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookout",
        abstract: "Finds QR codes, barcodes and faces in video and writes each detection as a JSON line.",
        discussion: """
            Input is an MJPEG stream (concatenated JPEGs, as `ffmpeg -f mjpeg` writes) or a Y4M stream \
            (`ffmpeg -f yuv4mpegpipe`), from a file or standard input; `lookout scan` reads still images.
            Detections go to standard output, one JSON line each; diagnostics go to standard error.

            EXAMPLES
              lookout run --input clip.mjpeg
              lookout run -i clip.mjpeg | jq -r 'select(.kind=="qr").value'
              ffmpeg -i clip.mp4 -f mjpeg - | lookout run -i - --types qr,ean13
              lookout run --input clip.y4m --realtime --format text
              lookout scan label.png shelf.jpg
              lookout run --events changes --mqtt mqtt://broker/lookout --ha-discovery
              lookout run --events changes --on-code ./open-door --on-presence ./lights
              lookout run -i hall=/dev/video0 -i door=rtsp://cam.local/stream1
              lookout run --config /etc/lookout/home.yml   (SIGHUP reloads it)
              lookout config check /etc/lookout/home.yml

            EXIT STATUS
              0   success; also after SIGINT, SIGTERM or SIGQUIT (a
                  clean stop), or when the reader of the output goes away
              1   any other failure (stream format, face model, write)
              64  usage error (unknown option, a value out of its
                  range, a bad input name or token, bad --mqtt
                  address, hook program not found, a URL scheme
                  ffmpeg does not read, a configuration file with
                  problems: each one as FILE:LINE:COLUMN: key: what)
              66  input missing or unreadable (also a password,
                  token or TLS file, a secret file that is a FIFO,
                  device or directory, or a file ffmpeg cannot read)
              69  the camera was lost and --exit-on-loss was given
              72  the input needs ffmpeg and ffmpeg is not installed
              73  the state directory (--state-dir: each camera's MQTT
                  outbox and event numbers) cannot be created or written, another
                  Lookout process uses it or a camera's outbox, or a
                  name in it is a symbolic link (never followed)
              77  --keyboard cannot open /dev/uinput: the uinput module
                  is not loaded, or the user may not write it (the
                  lookout group and the package's udev rule)
              130/143/131  a second SIGINT/SIGTERM/SIGQUIT while stopping
            """,
        version: "0.2.0",
        subcommands: [RunCommand.self, ScanCommand.self, DevicesCommand.self, ConfigCommand.self],
        defaultSubcommand: RunCommand.self
    )

    static func main() {
        // First, before any thread starts: every thread inherits the blocked signals.
        StopSignals.install()
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler() }
        StandardDescriptors.ensureOpen()
        // Every command: a reader that goes away (`lookout --help | head -1`) is an EPIPE to
        // handle, never a death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        MemoryTuning.apply()
        do {
            var command = try parseAsRoot(CommandLineArguments.decoded())
            guard let running = command as? AsyncParsableCommand else {
                StopSignals.useDefaultActions()
                try command.run()
                return
            }
            // `run` awaits the service on Swift's pool, and the process ends with it. The
            // command is handed to the task and used nowhere else (its parsed options are not
            // Sendable).
            nonisolated(unsafe) let handed = running
            Task.detached {
                var running = handed
                do { try await running.run() } catch { fail(error) }
                Glibc.exit(0)
            }
            // The main thread only waits, its signals still blocked: not dispatchMain(), which
            // on Linux parks it with none blocked, so a SIGHUP or SIGTERM would kill the process
            // instead of reaching StopSignals (nothing here uses the main queue).
            while true { pause() }
        } catch {
            fail(error)
        }
    }

    private static func fail(_ error: any Error) -> Never {
        // A usage error is one line on standard error, as every other diagnostic; help,
        // --version and exit codes (whose message is written already) go through
        // ArgumentParser as usual.
        if exitCode(for: error) == .success, RunHelp.isRequested(by: message(for: error)) {
            // run's screen, with the options the key table alone declares.
            print(RunHelp.text())
            exit(withError: ExitCode.success)
        }
        // The description tools read (the man page) and the zsh and fish completion scripts,
        // with the same options as the help.
        if exitCode(for: error) == .success,
           let spliced = RunHelpDump.spliced(message(for: error)) ?? RunCompletionScript.spliced(message(for: error)) {
            print(spliced)
            exit(withError: ExitCode.success)
        }
        guard exitCode(for: error) == .validationFailure, !(error is ExitCode) else { exit(withError: error) }
        let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid usage"
        printDiagnostic((message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message)
                        + (message.hasSuffix(".") ? "" : ".") + " See lookout --help.")
        exit(withError: ExitCode.validationFailure)
    }
}
