/// What went wrong in an ffmpeg child, in Lookout's words, read from the lines it wrote on
/// standard error: ffmpeg's own text (with its advice, "add a trailing '?' to the map") is kept as
/// the detail, shown with --verbose.
struct FFmpegDiagnosis: Equatable {
    /// What is wrong, said after the input's name ("clip.m4a: no video stream"), or nil when the
    /// lines say nothing Lookout recognises.
    let reason: String?
    /// The line of ffmpeg's that says it, or its last line.
    let ffmpegLine: String?
    /// True when the pictures are over the budget: trying again cannot help.
    let isOverBudget: Bool

    init(lines: [String], budget: PixelBudget, limits: FFmpegLimits) {
        let refusals = lines.filter { $0.contains("exceeds specified max pixel count") }
        if let line = refusals.first {
            // ffmpeg says the size twice: as coded, then with the width padded for its buffers.
            let size = refusals.compactMap(Self.pictureSize).min { $0.width * $0.height < $1.width * $1.height }
            reason = size.map { budget.exceeded(width: $0.width, height: $0.height) }
                ?? "over the pixel budget: its pictures are more than \(budget.allowance)"
            ffmpegLine = line
            isOverBudget = true
            return
        }
        isOverBudget = false
        if let line = lines.first(where: { $0.contains("matches no streams") }) {
            reason = "no video stream"
            ffmpegLine = line
        } else if let line = lines.first(where: Self.saysUnreadable) {
            reason = "not a video Lookout or ffmpeg can read"
            ffmpegLine = line
        } else if let line = lines.first(where: { $0.contains("Cannot allocate memory") || $0.contains("failed to map segment") }) {
            reason = "out of memory: ffmpeg may take \(limits.addressSpaceBytes >> 20) MiB for pictures of \(budget.allowance)"
            ffmpegLine = line
        } else if let (line, words) = lines.lazy.compactMap({ line in Self.networkReason(line).map { (line, $0) } }).first {
            reason = words
            ffmpegLine = line
        } else {
            reason = nil
            ffmpegLine = lines.last
        }
    }

    /// A network camera's failure in Lookout's words, from ffmpeg's line (which names the URL,
    /// password included, and its own advice); nil for a line it does not recognise.
    static func networkReason(_ line: String) -> String? {
        let known: [(said: String, reason: String)] = [
            ("Connection refused", "the camera refused the connection"),
            ("Connection timed out", "the camera did not answer (connection timed out)"),
            ("No route to host", "no route to the camera's host"),
            ("Network is unreachable", "the camera's network is unreachable"),
            ("Name or service not known", "the camera's host name does not resolve"),
            ("Failed to resolve hostname", "the camera's host name does not resolve"),
            ("Temporary failure in name resolution", "the camera's host name does not resolve"),
            ("401 Unauthorized", "the camera refused the user name or password (401)"),
            ("403 Forbidden", "the camera refused access (403)"),
            ("404 Not Found", "the camera has no such stream (404)"),
            ("Connection reset by peer", "the camera closed the connection"),
            ("Immediate exit requested", "the stream stopped"),
        ]
        return known.first { line.contains($0.said) }?.reason
    }

    /// ffmpeg's words for input it cannot take as a video: no container it knows, a damaged
    /// header, no decoder for the stream.
    private static func saysUnreadable(_ line: String) -> Bool {
        ["Invalid data found when processing input", "could not find codec parameters", "Decoder (codec",
         "Unknown input format", "Failed to open codec", "Error while opening decoder"]
            .contains { line.contains($0) }
    }

    /// "Picture size 8192x8192 exceeds ..." → (8192, 8192).
    private static func pictureSize(in line: String) -> (width: Int, height: Int)? {
        guard let range = line.firstRange(of: "Picture size ") else { return nil }
        let word = line[range.upperBound...].prefix { $0 != " " }
        let parts = word.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        return (width, height)
    }
}
