import Foundation
import Logging
import Lookout
import LookoutService
import Testing

/// Reloading from the configuration file is the service's: a host of the library does what SIGHUP
/// does for the command line, with no command line.
@Suite struct FileReloadTests {
    @Test func aHostReloadsTheServiceFromItsFileAndAFileWithProblemsChangesNothing() async throws {
        let folder = try ScratchFolder()
        defer { withExtendedLifetime(folder) {} }
        let file = folder.path + "/lookout.yml"
        let sample = Fixtures.path("sample.mjpeg")
        let first = "detection:\n  types: [qr]\ncameras:\n  a:\n    input: \(sample)\n"
        try first.write(toFile: file, atomically: true, encoding: .utf8)
        let service = try Service(configuration: try ConfigurationFile.load(path: file),
                                  environment: Service.Environment(output: ServiceCollector()))
        let reload = FileReload(path: file, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })

        try (first + "  b:\n    input: \(sample)\n").write(toFile: file, atomically: true, encoding: .utf8)
        var seen: LookoutConfiguration?
        guard case .applied(let report) = await reload.run(service, willApply: { seen = $0 }) else {
            Issue.record("the added camera was not applied")
            return
        }
        #expect(report.started == ["b"] && report.unchanged == ["a"])
        #expect(seen?.cameras.map(\.name) == ["a", "b"])
        #expect(service.pipelines.map(\.configuration.camera) == ["a", "b"])

        try (first + "    typs: [qr]\n").write(toFile: file, atomically: true, encoding: .utf8)
        guard case .refused = await reload.run(service) else {
            Issue.record("a file with a problem was not refused")
            return
        }
        #expect(service.pipelines.map(\.configuration.camera) == ["a", "b"])
        #expect(service.reloadCounts == Service.ReloadCounts(succeeded: 1, failed: 1))
        service.stop()
        _ = await service.run()
        await service.finish()
    }
}
