import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// A thin, typed wrapper over one open V4L2 video node: each ioctl the capture needs, with errors
/// that carry the device path and errno. Not thread-safe: one owner at a time.
final class V4L2Device {
    let path: String
    let fd: Int32
    let driver: V4L2Driver
    private var isOpen = true

    struct Capability {
        var driver: String
        var card: String
        var bus: String
        /// The node's own capabilities (device_caps when the driver sets it).
        var capabilities: UInt32

        var canCapture: Bool {
            capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0
        }
        var canStream: Bool { capabilities & UInt32(V4L2_CAP_STREAMING) != 0 }
    }

    struct FormatEntry {
        var fourcc: FourCC
        var name: String
        /// libv4l2 converts this one from another format in software: never chosen.
        var isEmulated: Bool
    }

    enum FrameSizes: Equatable {
        case discrete([(width: Int, height: Int)])
        case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)

        static func == (lhs: FrameSizes, rhs: FrameSizes) -> Bool {
            switch (lhs, rhs) {
            case (.discrete(let a), .discrete(let b)): return a.elementsEqual(b) { $0 == $1 }
            case let (.stepwise(a, b, c, d, e, f), .stepwise(g, h, i, j, k, l)): return [a, b, c, d, e, f] == [g, h, i, j, k, l]
            default: return false
            }
        }
    }

    struct ActiveFormat {
        var fourcc: FourCC
        var width: Int
        var height: Int
        var bytesPerLine: Int
        var sizeImage: Int

        init(_ format: v4l2_format) {
            let pix = format.fmt.pix
            fourcc = FourCC(rawValue: pix.pixelformat)
            width = Int(pix.width)
            height = Int(pix.height)
            bytesPerLine = Int(pix.bytesperline)
            sizeImage = Int(pix.sizeimage)
        }
    }

    struct Control {
        var id: UInt32
        var name: String
        var type: UInt32
        var minimum: Int32
        var maximum: Int32
        var step: Int32
        var defaultValue: Int32
        var value: Int32?
        var menu: [(index: Int32, name: String)]
    }

    private init(path: String, fd: Int32, driver: V4L2Driver) {
        self.path = path
        self.fd = fd
        self.driver = driver
    }

    deinit { close() }

    static func open(_ path: String, driver: V4L2Driver = LibV4L2Driver()) throws(DeviceError) -> V4L2Device {
        let fd = driver.open(path)
        guard fd >= 0 else { throw .opening(path, .current) }
        return V4L2Device(path: path, fd: fd, driver: driver)
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        driver.close(fd)
    }

    /// Runs an ioctl on a value, retrying EINTR. Returns nil on success, else errno.
    @discardableResult
    func call<T>(_ request: UInt, _ value: inout T) -> Errno? {
        while true {
            let result = withUnsafeMutableBytes(of: &value) { driver.ioctl(fd, request, $0.baseAddress!) }
            if result >= 0 { return nil }
            let error = Errno.current
            if error == .interrupted { continue }
            return error
        }
    }

    func require<T>(_ request: UInt, _ name: String, _ value: inout T) throws(DeviceError) {
        if let error = call(request, &value) {
            if error.rawValue == ENODEV || error.rawValue == EIO { throw .lost(path: path, reason: "\(name): \(error)") }
            throw .ioctlFailed(path: path, request: name, error)
        }
    }

    func capability() throws(DeviceError) -> Capability {
        var cap = v4l2_capability()
        try require(LK_VIDIOC_QUERYCAP, "VIDIOC_QUERYCAP", &cap)
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        return Capability(driver: String(fixedCString: cap.driver), card: String(fixedCString: cap.card),
                          bus: String(fixedCString: cap.bus_info), capabilities: caps)
    }

    func formats() -> [FormatEntry] {
        var entries = [FormatEntry]()
        var index: UInt32 = 0
        while true {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard call(LK_VIDIOC_ENUM_FMT, &description) == nil else { break }
            entries.append(FormatEntry(fourcc: FourCC(rawValue: description.pixelformat),
                                       name: String(fixedCString: description.description),
                                       isEmulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0))
            index += 1
        }
        return entries
    }

    func frameSizes(_ fourcc: FourCC) -> FrameSizes {
        var sizes = [(width: Int, height: Int)]()
        var index: UInt32 = 0
        while true {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = fourcc.rawValue
            guard call(LK_VIDIOC_ENUM_FRAMESIZES, &size) == nil else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append((Int(size.discrete.width), Int(size.discrete.height)))
            } else {
                let s = size.stepwise
                return .stepwise(minWidth: Int(s.min_width), maxWidth: Int(s.max_width), stepWidth: max(1, Int(s.step_width)),
                                 minHeight: Int(s.min_height), maxHeight: Int(s.max_height), stepHeight: max(1, Int(s.step_height)))
            }
            index += 1
        }
        return .discrete(sizes)
    }

    /// Frame intervals offered at a size, as frames per second (discrete), or a range.
    func frameRates(_ fourcc: FourCC, width: Int, height: Int) -> [FrameRateRange] {
        var rates = [FrameRateRange]()
        var index: UInt32 = 0
        while true {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = fourcc.rawValue
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            guard call(LK_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == nil else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                let d = interval.discrete
                if d.numerator > 0, d.denominator > 0 {
                    let fps = Double(d.denominator) / Double(d.numerator)
                    rates.append(FrameRateRange(minFrameRate: fps, maxFrameRate: fps))
                }
            } else {
                let s = interval.stepwise
                // The longest interval is the lowest rate.
                if s.max.numerator > 0, s.min.numerator > 0 {
                    rates.append(FrameRateRange(minFrameRate: Double(s.max.denominator) / Double(s.max.numerator),
                                                maxFrameRate: Double(s.min.denominator) / Double(s.min.numerator)))
                }
                break
            }
            index += 1
        }
        return rates
    }

    func setFormat(_ fourcc: FourCC, width: Int, height: Int) throws(DeviceError) -> ActiveFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.pixelformat = fourcc.rawValue
        format.fmt.pix.field = V4L2_FIELD_ANY.rawValue
        if let error = call(LK_VIDIOC_S_FMT, &format) {
            if error.rawValue == EBUSY { throw .busy(path: path) }
            throw .formatRefused(path: path, requested: "\(fourcc) \(width)x\(height)", reason: error.description)
        }
        return ActiveFormat(format)
    }

    func currentFormat() throws(DeviceError) -> ActiveFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try require(LK_VIDIOC_G_FMT, "VIDIOC_G_FMT", &format)
        return ActiveFormat(format)
    }

    /// Asks for a frame rate (VIDIOC_S_PARM) and returns the rate the driver granted, if it says.
    func setFrameRate(_ fps: Double) -> Double? {
        guard FrameRate.validRange.contains(fps) else { return frameRate() }
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        guard call(LK_VIDIOC_G_PARM, &parm) == nil,
              parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return frameRate() }
        // 1/fps as a fraction with a precise denominator (29.97 -> 1000/29970).
        parm.parm.capture.timeperframe.numerator = 1000
        parm.parm.capture.timeperframe.denominator = UInt32((fps * 1000).rounded())
        _ = call(LK_VIDIOC_S_PARM, &parm)
        return frameRate()
    }

    func frameRate() -> Double? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        guard call(LK_VIDIOC_G_PARM, &parm) == nil else { return nil }
        let perFrame = parm.parm.capture.timeperframe
        // A rate out of range (an interval of 1/4294967295 s) is as good as none.
        return FrameRate.checked(numerator: Double(perFrame.denominator), denominator: Double(perFrame.numerator))
    }

    func controls() -> [Control] {
        var controls = [Control]()
        var query = v4l2_queryctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        while call(LK_VIDIOC_QUERYCTRL, &query) == nil {
            defer { query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) }
            let type = query.type
            guard query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0,
                  type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue else { continue }
            var control = Control(id: query.id, name: String(fixedCString: query.name), type: type,
                                  minimum: query.minimum, maximum: query.maximum, step: query.step,
                                  defaultValue: query.default_value, value: nil, menu: [])
            if [V4L2_CTRL_TYPE_INTEGER.rawValue, V4L2_CTRL_TYPE_BOOLEAN.rawValue, V4L2_CTRL_TYPE_MENU.rawValue,
                V4L2_CTRL_TYPE_INTEGER_MENU.rawValue, V4L2_CTRL_TYPE_BUTTON.rawValue].contains(type) {
                var value = v4l2_control(id: query.id, value: 0)
                if type != V4L2_CTRL_TYPE_BUTTON.rawValue, call(LK_VIDIOC_G_CTRL, &value) == nil { control.value = value.value }
            } else {
                continue // 64-bit, string and compound controls are not settable with --control
            }
            if type == V4L2_CTRL_TYPE_MENU.rawValue, query.minimum <= query.maximum {
                for index in query.minimum...query.maximum {
                    var item = v4l2_querymenu()
                    item.id = query.id
                    item.index = UInt32(index)
                    if call(LK_VIDIOC_QUERYMENU, &item) == nil {
                        control.menu.append((index, String(fixedCString: item.name)))
                    }
                }
            }
            controls.append(control)
        }
        return controls
    }

    func setControl(id: UInt32, value: Int32, name: String) throws(DeviceError) {
        var control = v4l2_control(id: id, value: value)
        if let error = call(LK_VIDIOC_S_CTRL, &control) {
            throw .ioctlFailed(path: path, request: "setting control \(name) to \(value)", error)
        }
    }
}

/// A range of frame rates a device offers at one size; equal ends for a single rate.
public struct FrameRateRange: Sendable, Equatable, CustomStringConvertible {
    public var minFrameRate: Double
    public var maxFrameRate: Double

    public var description: String {
        minFrameRate == maxFrameRate ? maxFrameRate.formatted(maxFractionDigits: 3)
            : "\(minFrameRate.formatted(maxFractionDigits: 3))-\(maxFrameRate.formatted(maxFractionDigits: 3))"
    }
}
