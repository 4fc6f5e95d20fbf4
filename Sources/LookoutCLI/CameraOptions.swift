import ArgumentParser
import Lookout
import LookoutService

/// Options that configure a camera (`--input /dev/videoN`, or the default camera).
struct CameraOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Camera frame size (default 1280x720 or the nearest offered; each side 1 to \(CameraOptions.maximumSide)).", valueName: "WxH"))
    var size: String?

    @Option(name: .customLong("pixel-format"), help: ArgumentHelp(
        "Camera pixel format, as `lookout devices` lists it (default: MJPG, then YUYV, GREY, NV12, YU12).", valueName: "fourcc"))
    var pixelFormat: String?

    static let bufferRange = ValueRange.integer(2...32)
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Driver buffers to stream with (\(CameraOptions.bufferRange.text)). (default: 4)", valueName: "n"),
            transform: { try CameraOptions.bufferRange.parse($0) })
    var buffers: Int = 4

    @Option(name: .customLong("control"), help: ArgumentHelp(
        "Set a camera control before streaming, by the name `lookout devices --controls` shows (repeatable).",
        valueName: "name=value"))
    var controls: [String] = []

    static let watchdogRange = ValueRange.number(0.2...3600, unit: " seconds")
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Seconds without a frame before the camera counts as lost (\(CameraOptions.watchdogRange.text)). (default: 3)", valueName: "seconds"),
            transform: { try CameraOptions.watchdogRange.parse($0) })
    var watchdog: Double = 3

    @Flag(name: .customLong("exit-on-loss"), help: "Exit with status 69 when the camera is lost, instead of reconnecting.")
    var exitOnLoss = false

    mutating func validate() throws {
        _ = try parsedSize()
        _ = try parsedPixelFormat()
        _ = try parsedControls()
    }

    /// The largest width or height --size takes.
    static let maximumSide = 16384

    func parsedSize() throws -> (width: Int, height: Int)? {
        guard let size else { return nil }
        let parts = size.lowercased().split(separator: "x").map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], (1...Self.maximumSide).contains(width),
              (1...Self.maximumSide).contains(height) else {
            throw ValidationError("--size takes WIDTHxHEIGHT, each side 1 to \(Self.maximumSide), e.g. 1280x720, not '\(size)'.")
        }
        return (width, height)
    }

    func parsedPixelFormat() throws -> FourCC? {
        guard let pixelFormat else { return nil }
        guard let fourcc = FourCC(pixelFormat.uppercased().padding(toLength: 4)), fourcc.pixelFormat != nil else {
            throw ValidationError("--pixel-format takes one of MJPG, JPEG, YUYV, UYVY, GREY, NV12, NV21, YU12.")
        }
        return fourcc
    }

    func parsedControls() throws -> [(name: String, value: Int32)] {
        try controls.map { text in
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int32(parts[1].trimmingSpaces()), !parts[0].isEmpty else {
                throw ValidationError("--control takes name=value with a whole number from \(Int32.min) to \(Int32.max), e.g. brightness=128, not '\(text)'.")
            }
            return (parts[0].trimmingSpaces().lowercased(), value)
        }
    }

    /// True when only options that network sources honour too were customised.
    var appliesToNetworkSources: Bool {
        size == nil && pixelFormat == nil && buffers == 4 && controls.isEmpty
    }

    var isCustomized: Bool {
        size != nil || pixelFormat != nil || buffers != 4 || !controls.isEmpty || exitOnLoss || watchdog != 3
    }

    /// Opens the camera as a session input, configured from these options.
    func makeInput(device: CaptureDevice, frameRate: Double?, pixelBudget: PixelBudget) throws -> CaptureDeviceInput {
        try device.lockForConfiguration()
        defer { device.unlockForConfiguration() }
        let fourcc = try parsedPixelFormat()
        let size = try parsedSize()
        if fourcc != nil || size != nil {
            guard let format = device.preferredFormat(fourcc: fourcc, size: size) else {
                let offered = Set(device.formats.filter(\.isSupported).map(\.fourcc.description)).sorted()
                throw CaptureError.device(.formatRefused(path: device.uniqueID, requested: pixelFormat ?? "that size",
                                                         reason: "it offers " + (offered.isEmpty ? "nothing Lookout reads" : offered.joined(separator: ", "))))
            }
            device.activeFormat = format
        }
        if let frameRate { device.activeVideoMinFrameDuration = MediaTime(seconds: 1 / frameRate) }
        device.bufferCount = buffers
        for control in try parsedControls() { device.setControlValue(control.value, forControl: control.name) }
        return try CaptureDeviceInput(device: device, watchdogTimeout: watchdog, reconnectsAfterLoss: !exitOnLoss,
                                      pixelBudget: pixelBudget)
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
