// Drives a camera through Lookout's public API and prints one JSON object with what happened.
//
//   LookoutCaptureProbe rate DEVICE FOURCC WxH FPS SECONDS
//       Counts frames delivered over SECONDS (v4l2-ctl-style counting from buffer timestamps).
//   LookoutCaptureProbe hold DEVICE FOURCC WxH FPS HOLD SECONDS
//       A delegate that keeps every sample buffer for HOLD seconds, then lets go of them all and
//       keeps none: drops must be reported with their reasons and capture must resume at full rate.
import Dispatch
import Foundation
import Lookout
import Synchronization

final class ProbeDelegate: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    struct State {
        var times: [(pts: Int64, arrival: Double)] = []
        var held: [SampleBuffer] = []
        var holding = false
        var drops: [String: Int] = [:]
    }
    let state = Locked(State())

    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        let now = Date().timeIntervalSince1970
        state.withLock { state in
            state.times.append((sampleBuffer.presentationTime.nanoseconds, now))
            if state.holding { state.held.append(sampleBuffer) }
        }
    }

    func captureOutput(_ output: VideoDataOutput, didDrop drop: FrameDrop, from connection: CaptureConnection) {
        state.withLock { $0.drops[drop.reason.rawValue, default: 0] += drop.count }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(("probe: " + message + "\n").data(using: .utf8)!)
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 7, ["rate", "hold"].contains(arguments[1]) else {
    fail("usage: LookoutCaptureProbe rate DEVICE FOURCC WxH FPS SECONDS | hold DEVICE FOURCC WxH FPS HOLD SECONDS")
}
let mode = arguments[1], path = arguments[2]
let size = arguments[4].split(separator: "x").compactMap { Int($0) }
guard let fourcc = FourCC(arguments[3]), size.count == 2, let fps = Double(arguments[5]) else { fail("bad arguments") }
guard let hold = mode == "hold" ? Double(arguments[6]) : 0 else { fail("bad hold time") }
guard let seconds = Double(arguments[mode == "hold" ? 7 : 6]) else { fail("bad duration") }

do {
    let device = try CaptureDevice(path: path)
    try device.lockForConfiguration()
    guard let format = device.preferredFormat(fourcc: fourcc, size: (size[0], size[1])) else { fail("format not offered") }
    device.activeFormat = format
    device.activeVideoMinFrameDuration = MediaTime(seconds: 1 / fps)
    device.unlockForConfiguration()
    let input = try CaptureDeviceInput(device: device)
    let session = CaptureSession()
    try session.addInput(input)
    let output = VideoDataOutput()
    let delegate = ProbeDelegate()
    output.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "probe.delegate"))
    try session.addOutput(output)
    delegate.state.withLock { $0.holding = hold > 0 }
    let start = Date().timeIntervalSince1970
    session.startRunning()
    var releasedAt: Double?
    var heldAtRelease = 0
    if hold > 0 {
        Thread.sleep(forTimeInterval: hold)
        releasedAt = Date().timeIntervalSince1970
        heldAtRelease = delegate.state.withLock { state in
            state.holding = false
            let count = state.held.count
            state.held.removeAll()
            return count
        }
        Thread.sleep(forTimeInterval: seconds - hold)
    } else {
        Thread.sleep(forTimeInterval: seconds)
    }
    session.stopRunning()
    let finished = Date().timeIntervalSince1970
    let state = delegate.state.withLock { $0 }
    let times = state.times
    var result: [String: Any] = [
        "device": path, "granted": "\(input.formatDescription)", "granted_fps": input.formatDescription.frameRate ?? 0,
        "frames": times.count, "drops": state.drops, "seconds": finished - start,
        "pool_buffers": CaptureSession.imageBufferCount,
    ]
    if let first = times.first, let last = times.last, times.count >= 2 {
        let span = Double(last.pts - first.pts) / 1e9
        result["span"] = span
        result["measured_fps"] = Double(times.count - 1) / span
    }
    if let releasedAt {
        let during = times.filter { $0.arrival < releasedAt }
        // Rate after release: from buffer timestamps of frames that arrived a second after release.
        let after = times.filter { $0.arrival > releasedAt + 1 }
        result["held_at_release"] = heldAtRelease
        result["delivered_while_holding"] = during.count
        result["delivered_after_release"] = after.count
        if let first = after.first, let last = after.last, after.count >= 2 {
            result["fps_after_release"] = Double(after.count - 1) / (Double(last.pts - first.pts) / 1e9)
        }
    }
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
} catch {
    fail("\(error)")
}
