import Foundation
import Lookout
import Testing

/// What a program depending on the product `Lookout` gets: the capture library alone, without the
/// web server's or the service's packages, and faces as iOS offers them, with no model to find.
@Suite("Library product")
struct LibraryProductTests {
    /// The package's manifest as SwiftPM reads it (`swift package dump-package` on a copy of
    /// Package.swift: the package's own .build is locked while its tests run).
    static func manifest() throws -> [String: Any] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookout-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/Package.swift",
                                         toPath: folder.appendingPathComponent("Package.swift").path)
        let dump = try BackgroundProcess("/usr/bin/env", ["swift", "package", "--package-path", folder.path, "dump-package"])
        try #require(dump.waitForExit(timeout: 300) == 0, "swift package dump-package failed: \(dump.errors.lines)")
        let data = Data(dump.output.lines.joined(separator: "\n").utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The packages (by identity) a product's targets depend on, through its local targets.
    static func packages(of product: String, in manifest: [String: Any]) throws -> (targets: Set<String>, packages: Set<String>) {
        let products = manifest["products"] as? [[String: Any]] ?? []
        let wanted = try #require(products.first { $0["name"] as? String == product }?["targets"] as? [String])
        var byName: [String: [[String: Any]]] = [:]
        for target in manifest["targets"] as? [[String: Any]] ?? [] {
            if let name = target["name"] as? String { byName[name] = target["dependencies"] as? [[String: Any]] ?? [] }
        }
        var targets = Set<String>(), packages = Set<String>(), pending = wanted
        while let next = pending.popLast() {
            guard targets.insert(next).inserted else { continue }
            for dependency in byName[next] ?? [] {
                if let name = (dependency["byName"] as? [Any])?.first as? String ?? (dependency["target"] as? [Any])?.first as? String {
                    pending.append(name)
                } else if let productDependency = dependency["product"] as? [Any], productDependency.count > 1,
                          let package = productDependency[1] as? String {
                    packages.insert(package.lowercased())
                }
            }
        }
        return (targets, packages)
    }

    @Test func theLibraryBuildsWithoutTheWebServerOrTheConfigurationFile() throws {
        let manifest = try Self.manifest()
        let library = try Self.packages(of: "Lookout", in: manifest)
        #expect(library.targets.contains("Lookout"))
        #expect(library.targets.isDisjoint(with: ["LookoutHTTP", "LookoutService", "LookoutCLI"]))
        #expect(library.packages.isSubset(of: ["swift-log"]), "the product Lookout needs \(library.packages.sorted())")
        // The rest are products of their own.
        #expect(try Self.packages(of: "LookoutHTTP", in: manifest).packages.contains("hummingbird"))
        #expect(try Self.packages(of: "LookoutService", in: manifest).packages.contains("yams"))
    }

    @Test func aMetadataOutputOffersFacesWithNoModelGiven() throws {
        let session = CaptureSession()
        let output = MetadataOutput()
        try session.addOutput(output)
        #expect(output.availableMetadataObjectTypes.contains(.face))
        try output.setMetadataObjectTypes([.qr, .face])
        #expect(output.metadataObjectTypes == [.qr, .face])
        let standard = FaceDetectorConfiguration.standard
        #expect(standard.cascadePath.hasSuffix("/" + FaceModelLocator.cascadeName))
        #expect(standard.verificationCascadePath?.hasSuffix("/" + FaceModelLocator.verifierName) == true)
        #expect(FileManager.default.isReadableFile(atPath: standard.cascadePath))
    }
}
