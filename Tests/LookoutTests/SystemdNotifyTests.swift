import Foundation
import Testing

/// `lookout run` under a service manager that asked for notifications (systemd's Type=notify):
/// a real datagram socket as $NOTIFY_SOCKET, the built binary, real clips.
@Suite struct SystemdNotifyTests {
    /// The value of `key` in a notification, if it carries one.
    static func value(_ key: String, in message: String) -> String? {
        message.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    @Test func readyComesAfterTheFirstFrameWithEachCamerasStatus() throws {
        let clip = try ConfigReloadCommandTests.longClip(seconds: 60)
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let listener = try NotifyListener()
        // hall is a network camera nobody answers: it is lost, and retried.
        let process = try BackgroundProcess(lookoutBinary, ["run", "--realtime", "--types", "qr", "-i", "door=" + clip,
                                                            "-i", "hall=rtsp://127.0.0.1:9/none"],
                                            environment: listener.environment())
        defer { if process.isRunning { process.signal(SIGKILL) } }
        #expect(listener.wait { $0.contains { $0.hasPrefix("READY=1") } }, "\(listener.messages)")
        let ready = try #require(listener.messages.first { $0.hasPrefix("READY=1") })
        // Ready only once door's first frame was analysed and hall's failure was known.
        let status = try #require(Self.value("STATUS", in: ready))
        #expect(status.hasPrefix("door: running"), "\(status)")
        #expect(status.hasSuffix("; hall: lost, retrying"), "\(status)")
        // The rate measured over a second follows on a change: some frames a second, whatever
        // the load (a loaded machine paces the clip off its 30 fps; speed is the bench's).
        #expect(listener.wait { $0.contains { message in
            guard let status = Self.value("STATUS", in: message),
                  let match = status.wholeMatch(of: /door: running (\d+) fps; hall: lost, retrying/),
                  let rate = Int(match.1) else { return false }
            return rate > 0
        } }, "\(listener.messages)")
        process.signal(SIGTERM)
        #expect(process.waitForExit() == 0)
        #expect(listener.messages.last == "STOPPING=1\nSTATUS=stopping")
    }

    @Test func sighupSaysReloadingThenReady() throws {
        let clip = try ConfigReloadCommandTests.longClip(seconds: 60)
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let folder = try ScratchFolder()
        defer { withExtendedLifetime(folder) {} } // removed when the test ends, not after its last use
        let file = folder.path + "/lookout.yml"
        let configuration = "capture:\n  realtime: true\ndetection:\n  types: [qr]\ncameras:\n  door:\n    input: \(clip)\n"
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        let listener = try NotifyListener()
        let process = try BackgroundProcess(lookoutBinary, ["run", "--config", file], environment: listener.environment())
        defer { if process.isRunning { process.signal(SIGKILL) } }
        #expect(listener.wait { $0.contains { $0.hasPrefix("READY=1") } }, "\(listener.messages)")

        // Applied: a camera added.
        try (configuration + "  yard:\n    input: \(clip)\n").write(toFile: file, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        #expect(listener.wait { $0.filter { $0.hasPrefix("READY=1") }.count == 2 }, "\(listener.messages)")
        // Refused: a file with a problem changes nothing, and the service is ready again.
        try (configuration + "    typs: [qr]\n").write(toFile: file, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        #expect(listener.wait { $0.filter { $0.hasPrefix("READY=1") }.count == 3 }, "\(listener.messages)")
        #expect(process.errors.lines.contains { $0.hasPrefix("lookout: reload refused, nothing changed:") }, "\(process.errors.lines)")

        let sequence = listener.messages.filter { !$0.hasPrefix("WATCHDOG=") && !$0.hasPrefix("STATUS=") }
        try #require(sequence.count == 5, "\(sequence)")
        for index in [1, 3] {
            #expect(sequence[index].hasPrefix("RELOADING=1\nMONOTONIC_USEC="), "\(sequence)")
            let microseconds = try #require(Self.value("MONOTONIC_USEC", in: sequence[index]).flatMap { Int64($0) })
            #expect(microseconds > 0)
            #expect(sequence[index + 1].hasPrefix("READY=1\nSTATUS="), "\(sequence)")
        }
        #expect(Self.value("STATUS", in: sequence[2])?.contains("yard: ") == true, "\(sequence)")
        process.signal(SIGTERM)
        #expect(process.waitForExit() == 0)
    }

    @Test func watchdogPingsStopWhileACaptureLoopHangsAndComeBackWhenItReads() throws {
        let listener = try NotifyListener()
        let folder = try ScratchFolder()
        defer { withExtendedLifetime(folder) {} }
        let fifo = folder.path + "/camera.mjpeg"
        try #require(mkfifo(fifo, 0o600) == 0)
        let frame = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("frame0.jpg")))
        // The writer keeps the FIFO open and sends frames only when told: the capture loop's
        // read then blocks with no bound of its own, as on a stuck camera.
        let writer = FIFOWriter(path: fifo, frame: frame)
        writer.send(frames: 30)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--realtime", "--types", "qr", "-i", "pipe=" + fifo],
                                            environment: listener.environment(watchdogMicroseconds: 1_000_000))
        defer {
            if process.isRunning { process.signal(SIGKILL) }
            writer.close()
        }
        #expect(listener.wait { $0.contains { $0.hasPrefix("READY=1") } }, "\(listener.messages)")
        #expect(listener.wait { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 }, "\(listener.messages)")

        // No more frames: once the loop has been silent beyond its bound, no pings, and the
        // status says so; it says so again every second.
        let stalled: (String) -> Bool = { Self.value("STATUS", in: $0)?.hasPrefix("pipe: capture stalled for ") == true }
        #expect(listener.wait { $0.filter(stalled).count >= 4 }, "\(listener.messages)")
        let messages = listener.messages
        let firstStalled = try #require(messages.firstIndex(where: stalled))
        #expect(messages[firstStalled...].allSatisfy { $0 != "WATCHDOG=1" }, "\(messages)")

        // Frames again: the loop is alive, the pings come back.
        writer.send(frames: 30)
        let before = listener.messages.count
        #expect(listener.wait { $0.dropFirst(before).contains("WATCHDOG=1") }, "\(listener.messages)")
        #expect(process.isRunning)
        process.signal(SIGTERM)
        #expect(process.waitForExit() == 0)
    }
}
