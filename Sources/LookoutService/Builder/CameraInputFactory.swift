import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Decides what kind of input a camera's `input` names and opens it: a device (V4L2, with the
/// capture settings), an MJPEG or Y4M file or standard input (read by Lookout), a container
/// ffmpeg reads (MP4, MKV, ...), or a URL (a network camera, through ffmpeg).
public enum CameraInputFactory {
    /// An opened input and its name for lines (a URL without its password).
    public struct Opened {
        public var input: CaptureInput
        public var source: String
        /// A camera, a network source, or a file paced like one.
        public var isRealTime: Bool
    }

    /// Opens a camera's input with its effective settings.
    /// - Parameters:
    ///   - named: the camera's `input`: a device, a file, `-`, or a URL.
    ///   - settings: the camera's effective settings.
    ///   - wantsPictures: something shows or keeps pictures (web view, snapshots, clips): ffmpeg
    ///     then carries chroma too.
    ///   - standardInputIsClosed: standard input is closed, so `-` cannot be read.
    ///   - warnings: where warnings go (camera settings ignored for a file).
    ///   - notices: where notices go (the format streamed).
    ///   - spelling: how a refusal names a key (`--max-pixels` given on the command line).
    public static func open(_ named: String, settings: ConfigurationSettings, wantsPictures: Bool, standardInputIsClosed: Bool = false,
                            warnings: @Sendable (String) -> Void, notices: @Sendable (String) -> Void,
                            spelling: KeySpelling = KeySpelling()) throws(ServiceError) -> Opened {
        let budget = DetectionSetup.pixelBudget(settings, settingName: spelling("max-pixels"))
        let realtime = settings.resolved(\.realtime)
        let input: String
        do throws(MediaError) { input = try FFmpegInput.fileURLPath(named) ?? named } catch { throw .capture(.input(error)) }
        let standard = ConfigurationSettings.defaults
        let customised = settings.size != nil || settings.pixelFormat != nil || settings.resolved(\.buffers) != standard.buffers
            || !(settings.controls ?? []).isEmpty
        if FFmpegInput.isURL(input) {
            if customised { warnings("camera settings other than watchdog and exit-on-loss are ignored for \(FFmpegInput.redacted(input))") }
            do throws(CaptureError) {
                let reader = try FFmpegInput(path: input, options: ffmpegOptions(settings, carriesChroma: wantsPictures), pixelBudget: budget)
                return Opened(input: reader, source: FFmpegInput.redacted(input), isRealTime: true)
            } catch { throw .capture(error) }
        }
        if !input.isEmpty, !isDevice(input) {
            if input == "-", standardInputIsClosed { throw .standardInputClosed }
            if customised || settings.resolved(\.exitOnLoss) || settings.resolved(\.watchdog) != standard.watchdog {
                warnings("camera settings are ignored for \(input == "-" ? "standard input" : input)")
            }
            let reader: CaptureInput
            do throws(CaptureError) {
                reader = try AssetReaderInput(path: input, pacing: realtime ? .realTime : .asFastAsPossible, frameRate: settings.fps, pixelBudget: budget)
            } catch {
                // Not MJPEG or Y4M: a container ffmpeg reads (MP4, MKV, ...).
                guard case .input(.unrecognizedStream) = error, input != "-" else { throw .capture(error) }
                do throws(CaptureError) {
                    reader = try FFmpegInput(path: input, options: ffmpegOptions(settings, carriesChroma: wantsPictures), pixelBudget: budget)
                } catch { throw .capture(error) }
            }
            return Opened(input: reader, source: input, isRealTime: realtime)
        }
        let device: CaptureDevice
        if !input.isEmpty {
            do throws(DeviceError) { device = try CaptureDevice(path: input) } catch { throw .capture(.device(error)) }
        } else {
            guard let first = CaptureDevice.default(for: .video) else { throw .capture(.device(.noCamera)) }
            device = first
        }
        do throws(CaptureError) {
            let deviceInput = try makeDeviceInput(device, settings: settings, budget: budget)
            notices("\(device.uniqueID) (\(device.localizedName)): streaming \(deviceInput.formatDescription)")
            return Opened(input: deviceInput, source: input.isEmpty ? device.uniqueID : input, isRealTime: true)
        } catch { throw .capture(error) }
    }

    /// True when `path` is a device node (a camera), not a file or pipe.
    public static func isDevice(_ path: String) -> Bool {
        var info = stat()
        return path != "-" && path.withPlatformPath({ stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    /// Opens the camera as a session input, configured from the capture settings.
    static func makeDeviceInput(_ device: CaptureDevice, settings: ConfigurationSettings, budget: PixelBudget) throws(CaptureError) -> CaptureDeviceInput {
        do throws(DeviceError) { try device.lockForConfiguration() } catch { throw .device(error) }
        defer { device.unlockForConfiguration() }
        let fourcc = settings.pixelFormat.flatMap { FourCC($0.padding(toLength: 4)) }
        let size = settings.size
        if fourcc != nil || size != nil {
            guard let format = device.preferredFormat(fourcc: fourcc, size: size.map { ($0.width, $0.height) }) else {
                let offered = Set(device.formats.filter(\.isSupported).map(\.fourcc.description)).sorted()
                throw .device(.formatRefused(path: device.uniqueID, requested: settings.pixelFormat ?? "that size",
                                             reason: "it offers " + (offered.isEmpty ? "nothing Lookout reads" : offered.joined(separator: ", "))))
            }
            device.activeFormat = format
        }
        if let frameRate = settings.fps { device.activeVideoMinFrameDuration = MediaTime(seconds: 1 / frameRate) }
        device.bufferCount = settings.resolved(\.buffers)
        // In the order given: a control may take effect only after another.
        for control in settings.controls ?? [] { device.setControlValue(control.value, forControl: control.name) }
        return try CaptureDeviceInput(device: device, watchdogTimeout: settings.resolved(\.watchdog), reconnectsAfterLoss: !settings.resolved(\.exitOnLoss),
                                      pixelBudget: budget)
    }

    static func ffmpegOptions(_ settings: ConfigurationSettings, carriesChroma: Bool) -> FFmpegInput.Options {
        var options = FFmpegInput.Options()
        options.carriesChroma = carriesChroma
        options.hardwareAcceleration = settings.hwaccel
        options.watchdogTimeout = settings.resolved(\.watchdog)
        options.reconnectsAfterLoss = !settings.resolved(\.exitOnLoss)
        options.pacing = settings.realtime == true ? .realTime : .asFastAsPossible
        return options
    }
}

extension String {
    /// The text padded with spaces to `length`: a fourcc given in fewer than four letters.
    package func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
