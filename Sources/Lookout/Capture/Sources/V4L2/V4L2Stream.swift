import CV4L2
#if canImport(Glibc)
import Glibc
#endif

/// One streaming session on an open device: the fixed set of MMAP buffers, all queued, and
/// STREAMON. Tearing it down (STREAMOFF, munmap, REQBUFS 0, close) leaves nothing behind, however
/// many times a camera is lost and found.
final class V4L2Stream {
    struct Mapping {
        var address: UnsafeMutableRawPointer
        var length: Int
    }

    let device: V4L2Device
    let format: V4L2Device.ActiveFormat
    let frameRate: Double?
    private(set) var buffers: [Mapping] = []
    private var streaming = false

    enum Dequeued {
        case buffer(v4l2_buffer)
        /// Nothing ready yet (EAGAIN): poll again.
        case again
    }

    /// Opens, checks and configures the device and maps `bufferCount` buffers; `start()` streams.
    init(path: String, driver: V4L2Driver, choice: FormatChooser.Choice,
         controls: [(name: String, value: Int32)], bufferCount: Int) throws(DeviceError) {
        let device = try V4L2Device.open(path, driver: driver)
        do throws(DeviceError) {
            (format, frameRate) = try Self.configure(device, choice: choice, controls: controls)
        } catch {
            device.close()
            throw error
        }
        self.device = device
        do throws(DeviceError) {
            try map(count: bufferCount)
        } catch {
            stop()
            throw error
        }
    }

    private static func configure(_ device: V4L2Device, choice: FormatChooser.Choice,
                                  controls: [(name: String, value: Int32)]) throws(DeviceError) -> (V4L2Device.ActiveFormat, Double?) {
        let path = device.path
        let capability = try device.capability()
        guard capability.canCapture else { throw .notACaptureDevice(path: path, card: capability.card) }
        guard capability.canStream else { throw .noStreaming(path: path) }
        let granted = try device.setFormat(choice.fourcc, width: choice.width, height: choice.height)
        guard granted.fourcc == choice.fourcc else {
            throw .formatRefused(path: path, requested: "\(choice.fourcc) \(choice.width)x\(choice.height)",
                                 reason: "the driver offered \(granted.fourcc) instead")
        }
        let rate = choice.frameRate.flatMap { device.setFrameRate($0) } ?? device.frameRate()
        if !controls.isEmpty {
            let available = device.controls()
            for (name, value) in controls {
                guard let control = available.first(where: { CaptureDeviceControl.name(forLabel: $0.name) == name }) else {
                    throw .noSuchControl(path: path, name: name)
                }
                try device.setControl(id: control.id, value: value, name: name)
            }
        }
        return (granted, rate)
    }

    deinit { stop() }

    private func map(count: Int) throws(DeviceError) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        if let error = device.call(LK_VIDIOC_REQBUFS, &request) {
            if error.rawValue == EINVAL { throw .noStreaming(path: device.path) }
            if error.rawValue == EBUSY { throw .busy(path: device.path) }
            throw .ioctlFailed(path: device.path, request: "VIDIOC_REQBUFS", error)
        }
        guard request.count >= 2 else { throw .ioctlFailed(path: device.path, request: "VIDIOC_REQBUFS (got \(request.count) buffers)", Errno(rawValue: ENOMEM)) }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.index = index
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            try device.require(LK_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
            guard let address = device.driver.mmap(length: Int(buffer.length), fd: device.fd, offset: Int(buffer.m.offset)) else {
                throw .ioctlFailed(path: device.path, request: "mmap", .current)
            }
            // Not into children: a zxing-cpp reader forked while streaming would otherwise hold the
            // mapping, and with it the device's buffers, after a loss closes them here, and the
            // reopen's VIDIOC_REQBUFS would find them busy. Frames reach detectors as copies.
            _ = madvise(address, Int(buffer.length), MADV_DONTFORK)
            buffers.append(Mapping(address: address, length: Int(buffer.length)))
        }
    }

    /// Queues every buffer and starts streaming.
    func start() throws(DeviceError) {
        for index in buffers.indices { try queue(index) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try device.require(LK_VIDIOC_STREAMON, "VIDIOC_STREAMON", &type)
        streaming = true
    }

    func queue(_ index: Int) throws(DeviceError) {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try device.require(LK_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
    }

    func dequeue() throws(DeviceError) -> Dequeued {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        if let error = device.call(LK_VIDIOC_DQBUF, &buffer) {
            if error.rawValue == EAGAIN { return .again }
            if error.rawValue == ENODEV || error.rawValue == EIO || error.rawValue == EPIPE || error.rawValue == EINVAL {
                throw .lost(path: device.path, reason: "VIDIOC_DQBUF: \(error)")
            }
            throw .ioctlFailed(path: device.path, request: "VIDIOC_DQBUF", error)
        }
        guard Int(buffer.index) < buffers.count else {
            throw .ioctlFailed(path: device.path, request: "VIDIOC_DQBUF (buffer index \(buffer.index) out of range)", Errno(rawValue: EINVAL))
        }
        return .buffer(buffer)
    }

    /// STREAMOFF, unmap, free the driver's buffers, close. Safe to call twice.
    func stop() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            device.call(LK_VIDIOC_STREAMOFF, &type)
            streaming = false
        }
        for mapping in buffers { device.driver.munmap(mapping.address, length: mapping.length) }
        if !buffers.isEmpty {
            buffers.removeAll()
            var request = v4l2_requestbuffers()
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            device.call(LK_VIDIOC_REQBUFS, &request)
        }
        device.close()
    }
}
