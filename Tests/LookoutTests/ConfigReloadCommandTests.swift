import Foundation
import Lookout
import Testing

/// `lookout run --config FILE` and SIGHUP, as a service manager drives them.
@Suite struct ConfigReloadCommandTests {
    /// A paced MJPEG stream of `seconds` (a QR code in every frame), in a temporary file.
    static func longClip(seconds: Int) throws -> String {
        let frame = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("frame0.jpg")))
        let path = NSTemporaryDirectory() + "lookout-long-\(UUID().uuidString).mjpeg"
        var data = Data()
        for _ in 0..<(seconds * 30) { data.append(frame) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func sighupAppliesAValidFileAndAnInvalidOneChangesNothing() throws {
        let clip = try Self.longClip(seconds: 60)
        let folder = NSTemporaryDirectory() + "lookout-reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: clip)
        }
        let file = folder + "/lookout.yml"
        let steady = """
            capture:
              realtime: true
            detection:
              types: [qr]
              motion-threshold: 0
            output:
              stats: true
            cameras:
              steady:
                input: \(clip)

            """
        try steady.write(toFile: file, atomically: true, encoding: .utf8)
        let process = try BackgroundProcess(lookoutBinary, ["run", "--config", file])
        defer { if process.isRunning { process.signal(SIGKILL) } }
        #expect(process.output.wait(timeout: 60, until: { $0.contains { $0.contains("\"camera\":\"steady\"") } }))

        // An invalid file: one line says why, nothing changes, lines go on.
        try (steady + "    typs: [qr]\n").write(toFile: file, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        let refusal = "lookout: reload refused, nothing changed: \(file):11:5: cameras.steady.typs: unknown key; did you mean 'types'?"
        #expect(process.errors.wait(timeout: 60, until: { $0.contains(refusal) }), "\(process.errors.lines)")
        let linesBefore = process.output.lines.count
        #expect(process.output.wait(timeout: 60, until: { $0.count > linesBefore + 30 }))
        #expect(process.isRunning)

        // A valid one that adds a camera: it starts, and the steady one goes on untouched.
        try (steady + "  joining:\n    input: \(Fixtures.path("events-codes.mjpeg"))\n").write(toFile: file, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        #expect(process.errors.wait(timeout: 60, until: { $0.contains("lookout: reloaded \(file): started joining; unchanged steady") }),
                "\(process.errors.lines)")
        #expect(process.output.wait(timeout: 60, until: { $0.contains { $0.contains("\"camera\":\"joining\"") } }))
        let steadyLines: ([String]) -> Int = { $0.filter { $0.contains("\"camera\":\"steady\"") }.count }
        let steadyAfterReload = steadyLines(process.output.lines)
        #expect(process.output.wait(timeout: 60, until: { steadyLines($0) > steadyAfterReload + 30 }))
        process.signal(SIGINT)
        #expect(process.waitForExit(timeout: 60) == 0)

        let lines = process.output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let frames = lines.filter { $0["camera"] as? String == "steady" && $0["kind"] as? String == "qr" }.compactMap { $0["frame"] as? Int }
        // Paced and analysed in real time, the steady camera may drop a late frame under load, but
        // its frame numbers never go back or start again: the reloads did not restart it.
        try #require(frames.count > 60, "\(frames.count) steady frames")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 > $0 })
        let stats = lines.filter { $0["kind"] as? String == "stats" }
        #expect(stats.compactMap { $0["camera"] as? String }.sorted() == ["joining", "steady"])
        for line in stats {
            let reloads = try #require(line["reloads"] as? [String: Any], "\(line)")
            #expect(reloads["done"] as? Int == 1)
            #expect(reloads["failed"] as? Int == 1)
        }
    }

    @Test func configCheckReportsEveryProblemAndExits64() throws {
        let folder = NSTemporaryDirectory() + "lookout-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/broken.yml"
        try "detection:\n  face-rate: fast\ncameras:\n  door:\n    input: /nonexistent/door.mjpeg\n".write(toFile: file, atomically: true, encoding: .utf8)
        let broken = try lookout(["config", "check", file])
        #expect(broken.status == 64)
        #expect(broken.stderr == """
            lookout: \(file):2:14: detection.face-rate: 'fast' is not allowed (allowed: 0 to 1000)
            lookout: \(file):5:5: cameras.door.input: '/nonexistent/door.mjpeg': No such file or directory

            """)
        // The same file refuses to start, with the same words.
        let run = try lookout(["run", "--config", file])
        #expect(run.status == 64)
        #expect(run.stderr == broken.stderr)

        let good = folder + "/good.yml"
        try "cameras:\n  door:\n    input: \(Fixtures.path("sample.mjpeg"))\n    types: [qr]\n".write(toFile: good, atomically: true, encoding: .utf8)
        let checked = try lookout(["config", "check", good])
        #expect(checked.status == 0)
        #expect(checked.lines == ["\(good): ok, 1 camera: door"])
        let printed = try lookout(["config", "print", good])
        #expect(printed.status == 0)
        #expect(printed.lines.contains("    types: [qr]"))
        #expect(printed.lines.contains("    motion-threshold: 0"))
        // Options override the file: --types for every camera.
        let run2 = try lookout(["run", "--config", good, "--types", "ean13", "-q"])
        #expect(run2.status == 0)
        #expect(Set(run2.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["kind"] as? String }) == ["ean13"])
        // Options are checked together with the file: a LAN address without a token is refused.
        let open = try lookout(["run", "--config", good, "--http", "0.0.0.0:0"])
        #expect(open.status == 64)
        #expect(open.stderr.contains("http.http: 0.0.0.0:0 is reachable from other machines"), "\(open.stderr)")
        // LOOKOUT_CONFIG names the file when --config does not.
        let byEnvironment = try lookout(["run", "-q"], environment: ["LOOKOUT_CONFIG": good])
        #expect(byEnvironment.status == 0)
        #expect(byEnvironment.lines.count == 60)
    }
}
