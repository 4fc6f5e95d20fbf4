/// What an ffmpeg child may decode and how much memory it may take, from the pixel budget.
///
/// Lookout checks the exact size in the Y4M header ffmpeg writes before its first frame; these
/// bounds hold before that: ffmpeg's decoder refuses larger pictures before allocating them
/// (`-max_pixels`), and the child's address space is limited (`RLIMIT_AS`, set by `ulimit -v`
/// in the child before ffmpeg is executed), so no input can make ffmpeg take memory without bound.
struct FFmpegLimits: Equatable, Sendable {
    /// ffmpeg's `-max_pixels`: twice the budget. ffmpeg counts the decoder's padded width (a
    /// multiple of 32 or 64), so the exact budget would refuse some pictures Lookout allows;
    /// anything between the budget and this is refused by Lookout at the header.
    let decoderPixels: Int
    /// The child's address space in bytes: 512 MiB for ffmpeg's libraries, thread stacks and
    /// buffers (Debian's ffmpeg maps about 260 MiB before decoding anything), plus 16 bytes per
    /// decodable pixel for its frame pool (an 8192x8192 H.264 with 16 threads needs 1.26 GB).
    let addressSpaceBytes: Int

    static let baseAddressSpace = 512 << 20
    static let bytesPerDecodablePixel = 16

    init(budget: PixelBudget) {
        let (doubled, overflow) = budget.maximumPixels.multipliedReportingOverflow(by: 2)
        // The option is an int in ffmpeg.
        decoderPixels = overflow ? Int(Int32.max) : min(doubled, Int(Int32.max))
        addressSpaceBytes = Self.baseAddressSpace + Self.bytesPerDecodablePixel * decoderPixels
    }

    /// The command that runs `command` with the address space limited: `/bin/sh` sets the limit
    /// in the child, then executes ffmpeg in its place (same pid, same process group). A lower
    /// limit already in force is kept.
    func wrapping(_ command: [String]) -> [String] {
        ["/bin/sh", "-c", "ulimit -v \(addressSpaceBytes / 1024) 2>/dev/null; exec \"$0\" \"$@\""] + command
    }
}
