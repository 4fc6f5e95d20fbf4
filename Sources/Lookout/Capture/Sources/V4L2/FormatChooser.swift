/// Chooses what a camera streams when the user does not say everything: MJPEG first (cheap on USB,
/// decoded straight to luma), then YUYV, then the planar formats; a modest size (1280x720 or the
/// nearest offered, never simply the largest: CPU is the product); 30 fps where offered.
enum FormatChooser {
    static let preference = ["MJPG", "JPEG", "YUYV", "GREY", "NV12", "YU12", "UYVY", "NV21"]
    static let defaultSize = (width: 1280, height: 720)
    static let defaultFrameRate = 30.0

    struct Choice: Equatable {
        var fourcc: FourCC
        var width: Int
        var height: Int
        var frameRate: Double?
    }

    static func choose(from formats: [CaptureDevice.Format], fourcc: FourCC? = nil,
                       size: (width: Int, height: Int)? = nil, frameRate: Double? = nil) -> Choice? {
        var candidates = formats.filter(\.isSupported)
        if let fourcc { candidates = candidates.filter { $0.fourcc == fourcc } }
        guard !candidates.isEmpty else { return nil }
        let target = size ?? defaultSize
        // An exact size the user asked for beats format preference.
        if size != nil {
            let exact = candidates.filter { offers($0, target) }
            if !exact.isEmpty { candidates = exact }
        }
        func rank(_ format: CaptureDevice.Format) -> Int { preference.firstIndex(of: format.fourcc.description) ?? preference.count }
        let best = candidates.map(rank).min()!
        let sameFormat = candidates.filter { rank($0) == best }
        var chosen: (format: CaptureDevice.Format, width: Int, height: Int)?
        var chosenDistance = Double.infinity
        for format in sameFormat {
            let size = nearestSize(in: format, to: target)
            let distance = abs(log(Double(size.width) / Double(target.width))) + abs(log(Double(size.height) / Double(target.height)))
            if distance < chosenDistance - 1e-9
                || (abs(distance - chosenDistance) < 1e-9 && size.width * size.height < chosen!.width * chosen!.height) {
                chosen = (format, size.width, size.height)
                chosenDistance = distance
            }
        }
        guard let chosen else { return nil }
        let wanted = frameRate ?? defaultFrameRate
        let rates = chosen.format.frameRateRanges
        var rate: Double? = frameRate
        if !rates.isEmpty {
            rate = rates.map { min(max(wanted, $0.minFrameRate), $0.maxFrameRate) }
                .min { abs($0 - wanted) < abs($1 - wanted) }
        }
        return Choice(fourcc: chosen.format.fourcc, width: chosen.width, height: chosen.height, frameRate: rate)
    }

    private static func offers(_ format: CaptureDevice.Format, _ size: (width: Int, height: Int)) -> Bool {
        guard let range = format.sizeRange else { return format.width == size.width && format.height == size.height }
        return (range.minWidth...range.maxWidth).contains(size.width) && (range.minHeight...range.maxHeight).contains(size.height)
            && (size.width - range.minWidth) % range.stepWidth == 0 && (size.height - range.minHeight) % range.stepHeight == 0
    }

    private static func nearestSize(in format: CaptureDevice.Format, to target: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard let range = format.sizeRange else { return (format.width, format.height) }
        func fit(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Int {
            let clamped = min(max(value, low), high)
            return low + (clamped - low) / step * step
        }
        return (fit(target.width, range.minWidth, range.maxWidth, range.stepWidth),
                fit(target.height, range.minHeight, range.maxHeight, range.stepHeight))
    }
}

#if canImport(Glibc)
import Glibc
#endif
