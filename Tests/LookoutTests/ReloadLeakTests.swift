import Foundation
import Testing

/// 50 reloads of a running `lookout` that add, change and remove cameras (and rebuild the shared
/// MQTT node and web server) leave its descriptors, child processes (zxing-cpp's helpers) and
/// threads as they were: a removed or restarted camera goes with its input, helpers, memfds,
/// pipes, sockets, threads and MQTT connection.
@Suite struct ReloadLeakTests {
    /// What a process holds, read from /proc.
    struct Holdings: Equatable, CustomStringConvertible {
        /// Open descriptors by what they point to, numbers taken out ("pipe:[]", "/tmp/x.fifo").
        var descriptors: [String: Int]
        var children: Int
        /// Threads by name, libdispatch's pool workers left out (it starts and reaps them itself).
        var ownThreads: [String: Int]
        var threads: Int

        /// Nothing more of any kind than `other`: a part started on first use (zxing-cpp's second
        /// helper, for a code ZBar missed) may be there in one and not yet in the other.
        func holdsNoMore(than other: Holdings) -> Bool {
            descriptors.allSatisfy { other.descriptors[$0.key, default: 0] >= $0.value } && children <= other.children
                && ownThreads.allSatisfy { other.ownThreads[$0.key, default: 0] >= $0.value } && threads <= other.threads + 2
        }

        var description: String { "\(descriptors.values.reduce(0, +)) descriptors \(descriptors), \(children) children, threads \(ownThreads) of \(threads)" }

        init(pid: pid_t) {
            let fm = FileManager.default
            let fds = (try? fm.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            descriptors = [:]
            for fd in fds {
                let target = (try? fm.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "gone"
                descriptors[target.filter { !$0.isNumber }, default: 0] += 1
            }
            children = ((try? fm.contentsOfDirectory(atPath: "/proc")) ?? []).filter { entry in
                guard Int(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                // "pid (comm) state ppid ...": the comm may hold spaces and parentheses.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 1 && Int(fields[1]) == Int(pid)
            }.count
            let tasks = (try? fm.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            threads = tasks.count
            ownThreads = [:]
            for task in tasks {
                let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                // libdispatch's workers: "com.apple.root.default-qos.overcommit" and the like, cut to 15 bytes.
                if name.hasSuffix("-qos") || name.hasSuffix("qos.overcommit") || name.hasSuffix("-qos.overcommit") { continue }
                ownThreads[name, default: 0] += 1
            }
        }
    }

    @Test func fiftyReloadsThatAddChangeAndRemoveCamerasLeaveNothingBehind() throws {
        let broker = try MQTTBroker()
        try broker.start()
        let folder = try ScratchFolder()
        let frame = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("frame0.jpg")))
        // Each camera on a FIFO of its own, written a few frames and kept open: a camera that is
        // running (waiting for its next frame) when a reload removes or restarts it.
        var writers: [FIFOWriter] = []
        defer { writers.forEach { $0.close() } }
        func fifo(_ name: String) throws -> String {
            let path = folder.path + "/\(name)-\(writers.count).mjpeg"
            try #require(mkfifo(path, 0o600) == 0)
            let writer = FIFOWriter(path: path, frame: frame)
            writer.send(frames: 3)
            writers.append(writer)
            return path
        }
        let httpPort = try TestPort.lease()
        // A rebuild restarts every camera, `steady` too: it gets a FIFO with frames then.
        var steady = try fifo("steady"), previewRate = 5
        let file = folder.path + "/lookout.yml"
        /// Step `step`'s configuration: `steady` always; `changing` on a new FIFO with other types
        /// (restarted), `coming` added and removed, and every fifth step a new preview rate (the
        /// node and the web server rebuilt, every camera restarted), the next step the old one.
        func write(step: Int) throws {
            let rate = step % 5 == 4 ? 2 : 5
            if rate != previewRate { steady = try fifo("steady") }
            previewRate = rate
            var text = """
                detection:
                  types: [qr, ean13, face, datamatrix]
                mqtt:
                  mqtt: \(broker.url)/leak
                http:
                  http: 127.0.0.1:\(httpPort)
                  preview-fps: \(rate)
                cameras:
                  steady:
                    input: \(steady)

                """
            if step % 2 == 1 {
                text += "  changing:\n    input: \(try fifo("changing"))\n    types: [\(step % 4 == 1 ? "qr, datamatrix" : "ean13, face")]\n"
            }
            if step % 3 == 2 { text += "  coming:\n    input: \(try fifo("coming"))\n" }
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(step: 0)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--config", file])
        defer { if process.isRunning { process.signal(SIGKILL) } }
        try #require(process.output.wait(timeout: 120) { $0.contains { $0.contains("\"camera\":\"steady\"") } }, "\(process.errors.lines)")

        var reloads = 0
        func reload(to step: Int) throws {
            try write(step: step)
            process.signal(SIGHUP)
            reloads += 1
            let done = reloads
            try #require(process.errors.wait(timeout: 120) { $0.filter { $0.contains("reloaded \(file):") }.count == done },
                         "reload \(done): \(process.errors.lines.suffix(20))")
        }
        // Warm up (libraries opened on first use, the node's first connection), back to step 0.
        try reload(to: 1)
        try reload(to: 0)
        var before = Holdings(pid: process.pid)
        // The baseline once it is steady: every camera's first analysis done, its helper started.
        _ = eventually(timeout: 30, every: 0.5) {
            let now = Holdings(pid: process.pid)
            defer { before = now }
            return now.descriptors == before.descriptors && now.children == before.children
        }
        for step in 1...50 { try reload(to: step % 50) }
        #expect(reloads == 52)
        // Step 0 again. A stopped camera's parts go as its last work ends: wait for it, generously.
        var after = Holdings(pid: process.pid)
        let settled = eventually(timeout: 120, every: 0.5) {
            after = Holdings(pid: process.pid)
            return after.holdsNoMore(than: before)
        }
        #expect(settled, "before: \(before)\nafter: \(after)")
        #expect(!process.errors.lines.contains { $0.contains("failed") || $0.contains("refused") }, "\(process.errors.lines)")
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: 60) == 0, "\(process.errors.lines.suffix(20))")
    }
}
