import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 camera (AVCaptureDevice): what it is, what it offers, and how it is to be configured.
///
/// Find cameras with `CaptureDevice.devices()` or `CaptureDevice.default(for: .video)`, or name one
/// with `CaptureDevice(path:)`. Change `activeFormat`, `activeVideoMinFrameDuration`, buffer count
/// and control values between `lockForConfiguration()` and `unlockForConfiguration()`; they apply
/// when a `CaptureDeviceInput` for the device starts streaming.
public final class CaptureDevice: Sendable {
    /// What kind of media a device captures; Lookout captures video.
    public enum MediaType: Sendable { case video }

    /// One pixel format at one frame size, with the frame rates offered there.
    public struct Format: Sendable, Equatable, CustomStringConvertible {
        public var fourcc: FourCC
        /// The driver's name for the pixel format.
        public var name: String
        public var width: Int
        public var height: Int
        /// For stepwise sizes, the ranges; nil for a discrete size.
        public var sizeRange: SizeRange?
        public var frameRateRanges: [FrameRateRange]

        /// True when Lookout reads this format (it reaches the detectors as a luma plane).
        public var isSupported: Bool { fourcc.pixelFormat != nil }

        public var description: String { "\(fourcc) \(width)x\(height)" }
    }

    public struct SizeRange: Sendable, Equatable {
        public var minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight: Int
    }

    /// The device node (`/dev/video0`).
    public let uniqueID: String
    /// A name that survives reboots and re-plugging (`/dev/v4l/by-id/...`), when udev made one.
    public let stablePath: String?
    /// The card name the driver reports.
    public let localizedName: String
    public let driverName: String
    public let busInfo: String
    /// Every size and rate of each native pixel format Lookout reads, and the other native formats
    /// by name only, with no sizes (libv4l2's software conversions excluded). Sizes and rates of
    /// formats Lookout cannot use are not enumerated: on some drivers that is thousands of ioctls.
    public let formats: [Format]
    let driver: V4L2Driver

    private struct Settings {
        var locked = false
        var activeFormat: Format?
        var frameRate: Double?
        var bufferCount = 4
        var controls: [(name: String, value: Int32)] = []
    }

    private let settings = Locked(Settings())

    /// Opens `path` long enough to read what the device is and offers.
    public convenience init(path: String) throws(DeviceError) {
        try self.init(path: path, driver: LibV4L2Driver())
    }

    init(path: String, driver: V4L2Driver) throws(DeviceError) {
        let device = try V4L2Device.open(path, driver: driver)
        defer { device.close() }
        let capability = try device.capability()
        guard capability.canCapture else { throw .notACaptureDevice(path: path, card: capability.card) }
        uniqueID = path
        localizedName = capability.card
        driverName = capability.driver
        busInfo = capability.bus
        stablePath = Self.stablePath(for: path)
        self.driver = driver
        var formats = [Format]()
        for entry in device.formats() where !entry.isEmulated {
            guard entry.fourcc.pixelFormat != nil else {
                formats.append(Format(fourcc: entry.fourcc, name: entry.name, width: 0, height: 0, sizeRange: nil,
                                      frameRateRanges: []))
                continue
            }
            switch device.frameSizes(entry.fourcc) {
            case .discrete(let sizes):
                for size in sizes {
                    formats.append(Format(fourcc: entry.fourcc, name: entry.name, width: size.width, height: size.height,
                                          sizeRange: nil,
                                          frameRateRanges: device.frameRates(entry.fourcc, width: size.width, height: size.height)))
                }
            case let .stepwise(minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight):
                let range = SizeRange(minWidth: minWidth, maxWidth: maxWidth, stepWidth: stepWidth,
                                      minHeight: minHeight, maxHeight: maxHeight, stepHeight: stepHeight)
                formats.append(Format(fourcc: entry.fourcc, name: entry.name, width: maxWidth, height: maxHeight,
                                      sizeRange: range,
                                      frameRateRanges: device.frameRates(entry.fourcc, width: maxWidth, height: maxHeight)))
            }
        }
        self.formats = formats
    }

    // MARK: Discovery

    /// Every video capture node, in /dev/videoN order (metadata, output and radio nodes skipped;
    /// nodes that cannot be opened are skipped too).
    public static func devices() -> [CaptureDevice] {
        devices(driver: LibV4L2Driver())
    }

    static func devices(driver: V4L2Driver) -> [CaptureDevice] {
        videoNodes().compactMap { try? CaptureDevice(path: $0, driver: driver) }
    }

    /// The first capture device, like AVCaptureDevice.default(for: .video).
    public static func `default`(for mediaType: MediaType) -> CaptureDevice? {
        devices().first
    }

    static func videoNodes() -> [String] {
        guard let folder = opendir("/dev") else { return [] }
        defer { closedir(folder) }
        var numbers = [Int]()
        while let entry = readdir(folder) {
            let name = String(fixedCString: entry.pointee.d_name)
            if name.hasPrefix("video"), let number = Int(name.dropFirst(5)) { numbers.append(number) }
        }
        return numbers.sorted().map { "/dev/video\($0)" }
    }

    private static func stablePath(for node: String) -> String? {
        guard let resolvedNode = realPath(node) else { return nil }
        for folder in ["/dev/v4l/by-id", "/dev/v4l/by-path"] {
            guard let directory = opendir(folder) else { continue }
            defer { closedir(directory) }
            var names = [String]()
            while let entry = readdir(directory) {
                let name = String(fixedCString: entry.pointee.d_name)
                if !name.hasPrefix(".") { names.append(name) }
            }
            for name in names.sorted() where realPath(folder + "/" + name) == resolvedNode {
                return folder + "/" + name
            }
        }
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = path.withPlatformPath({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return String(platformPath: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    // MARK: Configuration

    /// Takes the device's configuration for changes. Throws if it is already locked.
    public func lockForConfiguration() throws(DeviceError) {
        let taken = settings.withLock { state -> Bool in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        guard taken else { throw .busy(path: uniqueID) }
    }

    public func unlockForConfiguration() {
        settings.withLock { $0.locked = false }
    }

    private func requireLock() {
        precondition(settings.withLock { $0.locked }, "change a CaptureDevice between lockForConfiguration() and unlockForConfiguration()")
    }

    /// The format to stream; nil lets Lookout choose (`preferredFormat()`).
    public var activeFormat: Format? {
        get { settings.withLock { $0.activeFormat } }
        set { requireLock(); settings.withLock { $0.activeFormat = newValue } }
    }

    /// The shortest time between frames (1 / the highest frame rate) to ask for; nil keeps the
    /// rate Lookout chooses (30 fps where offered).
    public var activeVideoMinFrameDuration: MediaTime? {
        get { settings.withLock { $0.frameRate.map { MediaTime(seconds: 1 / $0) } } }
        set { requireLock(); settings.withLock { $0.frameRate = newValue.map { 1 / $0.seconds } } }
    }

    /// How many driver buffers to stream with (V4L2 MMAP); 2 to 32, default 4.
    public var bufferCount: Int {
        get { settings.withLock { $0.bufferCount } }
        set {
            requireLock()
            precondition((2...32).contains(newValue), "buffer count must be between 2 and 32")
            settings.withLock { $0.bufferCount = newValue }
        }
    }

    /// Control values to set when streaming starts, by control name (`brightness`, `exposure_time_absolute`).
    public func setControlValue(_ value: Int32, forControl name: String) {
        requireLock()
        settings.withLock { state in
            state.controls.removeAll { $0.name == name }
            state.controls.append((name, value))
        }
    }

    var requestedFrameRate: Double? { settings.withLock { $0.frameRate } }
    var requestedControls: [(name: String, value: Int32)] { settings.withLock { $0.controls } }
}
