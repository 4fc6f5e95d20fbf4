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
            reason = size.map { Self.overBudget(width: $0.width, height: $0.height, budget: budget) }
                ?? "over the pixel budget: its pictures are more than the \(budget.maximumPixels) pixels --max-pixels allows"
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
            reason = "out of memory: ffmpeg may take \(limits.addressSpaceBytes >> 20) MiB with --max-pixels \(budget.maximumPixels)"
            ffmpegLine = line
        } else {
            reason = nil
            ffmpegLine = lines.last
        }
    }

    /// "over the pixel budget: 1280x720 is more than the 307200 pixels --max-pixels allows".
    static func overBudget(width: Int, height: Int, budget: PixelBudget) -> String {
        "over the pixel budget: \(width)x\(height) is more than the \(budget.maximumPixels) pixels --max-pixels allows"
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
