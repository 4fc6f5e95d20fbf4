import CV4L2
import Foundation
import Synchronization
@testable import Lookout

/// An in-process V4L2 "driver" that plays a script, for what real drivers cannot produce on demand:
/// EINTR, EAGAIN storms, sequence gaps, timestamps going backwards, damaged buffers, unplugging.
/// It keeps count of opens, closes, maps and unmaps so tests can prove nothing leaks.
/// The real drivers (vivid, v4l2loopback) are exercised by the VM tests.
final class ScriptedV4L2Driver: V4L2Driver, @unchecked Sendable {
    enum Step {
        /// A frame of GREY pixels (all `fill`), with the driver's sequence and timestamp.
        case frame(sequence: UInt32, timestampNs: Int64, flags: UInt32 = 0, bytesUsed: Int? = nil, fill: UInt8 = 128)
        /// A frame of a driver streaming MJPG: these bytes, as a camera sent them.
        case jpeg(sequence: UInt32, timestampNs: Int64, bytes: [UInt8])
        /// poll() interrupted by a signal.
        case interrupted
        /// poll() waits this long, then is interrupted: paces the frames after it.
        case pause(milliseconds: Int32)
        /// poll() is interrupted until `condition` holds (looked at every 5 ms): the frames after
        /// it wait for what the test waits for.
        case until(@Sendable () -> Bool)
        /// poll() says ready but DQBUF has nothing (EAGAIN).
        case spuriousWakeup
        /// poll() times out (the watchdog fires).
        case silence
        /// The camera is unplugged: poll reports an error, then `opensFailing` opens fail with ENODEV.
        case unplug(opensFailing: Int)
    }

    static let width = 64, height = 48
    /// The format the driver streams: GREY 64x48, or MJPG frames of `jpegSize`.
    let fourcc: FourCC
    let width: Int, height: Int
    let bufferLength: Int

    private struct State {
        var script: [Step]
        var openFDs = Set<Int32>()
        var nextFD: Int32 = 1000
        var opens = 0, closes = 0, maps = 0, unmaps = 0
        var failingOpens = 0
        /// Unplugged by the test (`unplug()`): at the next poll, then until `replug()`.
        var unplugRequested = false, unplugged = false
        var buffers: [(address: UnsafeMutableRawPointer?, queued: Bool)] = []
        var streaming = false
        var pendingFrame: Step?
    }

    private let state: Locked<State>

    init(script: [Step]) {
        state = Locked(State(script: script))
        fourcc = FourCC("GREY")!
        (width, height) = (Self.width, Self.height)
        bufferLength = Self.width * Self.height
    }

    /// A camera that streams MJPG at `jpegSize`, with buffers of `bufferLength` bytes.
    init(jpegScript script: [Step], jpegSize: (width: Int, height: Int), bufferLength: Int = 1 << 20) {
        state = Locked(State(script: script))
        fourcc = FourCC("MJPG")!
        (width, height) = jpegSize
        self.bufferLength = bufferLength
    }

    var counts: (opens: Int, closes: Int, maps: Int, unmaps: Int, openNow: Int) {
        state.withLock { ($0.opens, $0.closes, $0.maps, $0.unmaps, $0.openFDs.count) }
    }

    var queuedBuffers: Int { state.withLock { $0.buffers.filter(\.queued).count } }

    /// The camera goes away at the next poll, and stays away (opens fail with ENODEV) until
    /// `replug()`: a loss as long as the test needs, whatever the machine's pace.
    func unplug() { state.withLock { $0.unplugRequested = true } }

    func replug() { state.withLock { $0.unplugged = false } }

    func open(_ path: String) -> Int32 {
        state.withLock { state in
            if state.unplugged {
                errno = ENODEV
                return -1
            }
            if state.failingOpens > 0 {
                state.failingOpens -= 1
                errno = ENODEV
                return -1
            }
            state.opens += 1
            state.nextFD += 1
            state.openFDs.insert(state.nextFD)
            return state.nextFD
        }
    }

    func close(_ fd: Int32) {
        state.withLock { state in
            if state.openFDs.remove(fd) != nil { state.closes += 1 }
        }
    }

    func mmap(length: Int, fd: Int32, offset: Int) -> UnsafeMutableRawPointer? {
        state.withLock { state in
            let index = offset / bufferLength
            let address = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 64)
            state.buffers[index].address = address
            state.maps += 1
            return address
        }
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) {
        state.withLock { state in
            address.deallocate()
            state.unmaps += 1
        }
    }

    func poll(fd: Int32, cancelFD: Int32, timeoutMs: Int32) -> V4L2PollResult {
        let unplugNow = state.withLock { state in
            guard state.unplugRequested else { return false }
            (state.unplugRequested, state.unplugged, state.pendingFrame) = (false, true, nil)
            return true
        }
        if unplugNow { return .failed }
        let step: Step? = state.withLock { state in
            if state.pendingFrame != nil { return state.pendingFrame }
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        guard let step else {
            // Script done: behave like a silent camera until cancelled.
            var fds = [pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0)]
            return Glibc.poll(&fds, 1, timeoutMs) > 0 ? .cancelled : .timedOut
        }
        switch step {
        case .frame, .jpeg:
            state.withLock { $0.pendingFrame = step }
            return .ready
        case .interrupted:
            return .error(.interrupted)
        case .pause(let milliseconds):
            var fds = [pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0)]
            return Glibc.poll(&fds, 1, milliseconds) > 0 ? .cancelled : .error(.interrupted)
        case .until(let condition):
            if condition() { return .error(.interrupted) }
            state.withLock { $0.script.insert(step, at: 0) }
            var fds = [pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0)]
            return Glibc.poll(&fds, 1, 5) > 0 ? .cancelled : .error(.interrupted)
        case .spuriousWakeup:
            return .ready
        case .silence:
            return .timedOut
        case .unplug(let failing):
            state.withLock { $0.failingOpens = failing }
            return .failed
        }
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        func fail(_ code: Int32) -> Int32 { errno = code; return -1 }
        switch request {
        case LK_VIDIOC_QUERYCAP:
            let cap = argument.assumingMemoryBound(to: v4l2_capability.self)
            cap.pointee = v4l2_capability()
            withUnsafeMutableBytes(of: &cap.pointee.card) { raw in
                for (i, byte) in "Scripted camera".utf8.enumerated() { raw[i] = byte }
            }
            cap.pointee.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING) | UInt32(V4L2_CAP_DEVICE_CAPS)
            cap.pointee.device_caps = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
            return 0
        case LK_VIDIOC_ENUM_FMT:
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            guard description.pointee.index == 0 else { return fail(EINVAL) }
            description.pointee.pixelformat = fourcc.rawValue
            return 0
        case LK_VIDIOC_ENUM_FRAMESIZES:
            let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard size.pointee.index == 0 else { return fail(EINVAL) }
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete.width = UInt32(width)
            size.pointee.discrete.height = UInt32(height)
            return 0
        case LK_VIDIOC_ENUM_FRAMEINTERVALS:
            let interval = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard interval.pointee.index == 0 else { return fail(EINVAL) }
            interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            interval.pointee.discrete = v4l2_fract(numerator: 1, denominator: 30)
            return 0
        case LK_VIDIOC_S_FMT, LK_VIDIOC_G_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            format.pointee.fmt.pix.width = UInt32(width)
            format.pointee.fmt.pix.height = UInt32(height)
            format.pointee.fmt.pix.pixelformat = fourcc.rawValue
            format.pointee.fmt.pix.bytesperline = fourcc == FourCC("GREY")! ? UInt32(width) : 0
            format.pointee.fmt.pix.sizeimage = UInt32(bufferLength)
            return 0
        case LK_VIDIOC_G_PARM, LK_VIDIOC_S_PARM:
            let parm = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            parm.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
            parm.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: 30)
            return 0
        case LK_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            state.withLock { $0.buffers = Array(repeating: (nil, false), count: Int(request.pointee.count)) }
            return 0
        case LK_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            buffer.pointee.length = UInt32(bufferLength)
            buffer.pointee.m.offset = buffer.pointee.index * UInt32(bufferLength)
            return 0
        case LK_VIDIOC_QBUF:
            let index = Int(argument.assumingMemoryBound(to: v4l2_buffer.self).pointee.index)
            return state.withLock { state in
                guard index < state.buffers.count, !state.buffers[index].queued else { errno = EINVAL; return -1 }
                state.buffers[index].queued = true
                return 0
            }
        case LK_VIDIOC_DQBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            return state.withLock { state in
                guard let step = state.pendingFrame, let index = state.buffers.firstIndex(where: \.queued) else {
                    errno = EAGAIN
                    return -1
                }
                let sequence: UInt32, timestamp: Int64, flags: UInt32, used: Int
                switch step {
                case .frame(let number, let time, let frameFlags, let bytesUsed, let fill):
                    state.buffers[index].address?.initializeMemory(as: UInt8.self, repeating: fill, count: bufferLength)
                    (sequence, timestamp, flags, used) = (number, time, frameFlags, bytesUsed ?? bufferLength)
                case .jpeg(let number, let time, let bytes):
                    precondition(bytes.count <= bufferLength, "a scripted JPEG frame larger than the driver's buffers")
                    bytes.withUnsafeBytes { jpeg in
                        if let source = jpeg.baseAddress { state.buffers[index].address?.copyMemory(from: source, byteCount: jpeg.count) }
                    }
                    (sequence, timestamp, flags, used) = (number, time, 0, bytes.count)
                default:
                    errno = EAGAIN
                    return -1
                }
                state.pendingFrame = nil
                state.buffers[index].queued = false
                buffer.pointee.index = UInt32(index)
                buffer.pointee.sequence = sequence
                buffer.pointee.flags = flags
                buffer.pointee.bytesused = UInt32(used)
                buffer.pointee.timestamp = timeval(tv_sec: Int(timestamp / 1_000_000_000), tv_usec: Int(timestamp % 1_000_000_000 / 1000))
                return 0
            }
        case LK_VIDIOC_STREAMON:
            state.withLock { $0.streaming = true }
            return 0
        case LK_VIDIOC_STREAMOFF:
            state.withLock { state in
                state.streaming = false
                for i in state.buffers.indices { state.buffers[i].queued = false }
            }
            return 0
        default:
            return fail(EINVAL) // no controls
        }
    }
}
