import ArgumentParser
import Logging
import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// The documented exit codes (see `lookout --help`), from sysexits.h where one fits.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let noInput: Int32 = 66
    /// The state directory (an MQTT outbox) cannot be created, written or locked, or holds a
    /// symbolic link where Lookout makes a file or folder (sysexits' EX_CANTCREAT).
    static let cannotCreate: Int32 = 73
    /// The camera was lost and --exit-on-loss was given (EX_UNAVAILABLE).
    static let cameraLost: Int32 = 69
    /// A URL or video file needs ffmpeg, which is not installed (EX_OSFILE).
    static let ffmpegMissing: Int32 = 72
    /// --keyboard cannot open /dev/uinput: the module is not loaded or the user may not write it
    /// (EX_NOPERM: the system's set-up, not the options, is what to change).
    static let keyboardUnavailable: Int32 = 77

    /// The exit code for an error.
    static func code(for error: CaptureError) -> Int32 {
        switch error {
        case .input(.notFound), .input(.unreadable), .input(.ffmpegFailed), .input(.overPixelBudget), .device(.noSuchDevice), .device(.permissionDenied),
             .device(.noCamera):
            return noInput
        case .input(.unsupportedURL):
            return usage
        case .input(.ffmpegMissing):
            return ffmpegMissing
        case .device(.lost):
            return cameraLost
        default:
            return failure
        }
    }
}

/// Writes one diagnostic line to standard error at `level` (see `DiagnosticOutput`).
func printDiagnostic(_ message: String, level: Logger.Level = .error) {
    DiagnosticOutput.write(message, level: level)
}

/// Whether errors also show the libraries' own text (--verbose).
nonisolated(unsafe) var showsLibraryDetail = false

/// Reports an error in one sentence (and, with --verbose, what the library said on a second
/// line) and returns its documented exit code.
func fail(_ error: CaptureError) -> ExitCode {
    printDiagnostic(CommandLineHints.sentence(for: error))
    if showsLibraryDetail, let detail = error.detail { printDiagnostic("the library said: " + detail) }
    return ExitCode(ExitStatus.code(for: error))
}
