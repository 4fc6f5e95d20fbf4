import Foundation
import LookoutService
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The configuration file's YAML is read within bounds (values counted through aliases, depth,
/// size), a byte-order mark is skipped, and a key given twice is one problem among the others.
@Suite struct ConfigurationBoundsTests {
    private func problems(_ text: String) -> [String] { configurationProblems(text, checksFiles: false) }

    /// Nine levels of nine aliases: 9^9 (387 million) values once expanded, in 342 bytes.
    static let billionLaughs: String = {
        var text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
        }
        return text
    }()

    static let tooManyValues = "lookout.yml:6:8: holds more than 100000 values, an alias (*name) counting as every value it stands for; a configuration holds a few hundred (nested aliases are refused before they are expanded)"

    @Test func nestedAliasesAreRefusedInOneSentence() {
        #expect(problems(Self.billionLaughs) == [Self.tooManyValues])
        // As a key too: Yams would hash the aliased value to look for duplicates.
        #expect(problems(Self.billionLaughs + "? *i\n: x\n") == [Self.tooManyValues])
        // Without aliases, the bound is the same.
        let many = "detection:\n  types: [" + Array(repeating: "qr", count: 100_001).joined(separator: ",") + "]\n"
        let found = problems(many)
        #expect(found.count == 1 && found[0].contains("holds more than 100000 values"), "\(found)")
    }

    /// Runs lookout under a small Python parent that limits its address space (2 GB: should the
    /// bound break, the child fails rather than the machine) and reports its peak resident memory
    /// (RUSAGE_CHILDREN's ru_maxrss, in KB), with its exit status and standard error. Not wait4 on
    /// a child this process starts: posix_spawn shares this process's memory until the exec, and
    /// the kernel counts that high-water mark (the whole test runner's) as the child's.
    private func peakMemory(_ arguments: [String]) throws -> (kilobytes: Int, status: Int32, errors: String) {
        let errors = NSTemporaryDirectory() + "lookout-bounds-\(UUID().uuidString).err", peak = errors + ".peak"
        defer { unlink(errors); unlink(peak) }
        let script = """
            import resource, subprocess, sys
            resource.setrlimit(resource.RLIMIT_AS, (2_000_000 * 1024, 2_000_000 * 1024))
            code = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode
            open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
            sys.exit(code if code >= 0 else 128 - code)
            """
        let process = Process()
        process.environment = childEnvironment([:])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, peak, lookoutBinary] + arguments
        try #require(FileManager.default.createFile(atPath: errors, contents: nil))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let kilobytes = try #require(Int((try? String(contentsOfFile: peak, encoding: .utf8)) ?? ""), "no peak from the wrapper")
        return (kilobytes, process.terminationStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    /// `lookout config check` of the file: the sentence, exit 64, and a peak no larger than any
    /// small file's (it was 1.5 GB and growing before the bound).
    @Test func configCheckOfABillionLaughsStaysSmall() throws {
        let folder = NSTemporaryDirectory() + "lookout-bounds-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bomb = folder + "/bomb.yml", small = folder + "/small.yml"
        try Self.billionLaughs.write(toFile: bomb, atomically: true, encoding: .utf8)
        try "detection:\n  typs: [qr]\n".write(toFile: small, atomically: true, encoding: .utf8)
        let refused = try peakMemory(["config", "check", bomb])
        #expect(refused.status == 64)
        #expect(refused.errors == "lookout: " + Self.tooManyValues.replacingOccurrences(of: "lookout.yml", with: bomb) + "\n")
        let baseline = try peakMemory(["config", "check", small])
        #expect(baseline.status == 64)
        // The same memory as a 2-line file, give or take 30 MB (allocator and page-cache noise).
        #expect(refused.kilobytes < baseline.kilobytes + 30_000, "\(refused.kilobytes) KB against \(baseline.kilobytes) KB")
        #expect(refused.kilobytes < 200_000, "\(refused.kilobytes) KB")
    }

    @Test func aliasesWithinTheBoundsWork() throws {
        let configuration = try ConfigurationFile.parse("""
            detection:
              types: &codes [qr, ean13]
            cameras:
              door:
                input: /dev/null
                types: *codes
            """, file: "lookout.yml", environment: [:], checksFiles: false)
        #expect(configuration.cameras.first?.settings.types == [.qr, .ean13])
    }

    @Test func nestingIsBoundedInOneSentence() {
        let words = "nested more than 64 levels deep (lists and maps, aliases included); a configuration is a few levels deep"
        // Flow style, far past libyaml's own bound (1000) and just past Lookout's.
        for depth in [5000, 65] {
            let found = problems("a: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n")
            #expect(found.count == 1 && found[0].hasSuffix(words), "\(depth): \(found)")
        }
        // Block style.
        var block = "a:\n"
        for level in 0..<70 { block += String(repeating: "  ", count: level + 1) + "k\(level):\n" }
        #expect(problems(block).first?.hasSuffix(words) == true, "\(problems(block))")
        // Through an alias: 40 levels used at 40 levels deep.
        let forty = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let nested = "x: &x \(forty)\ny: " + String(repeating: "[", count: 40) + "*x" + String(repeating: "]", count: 40) + "\n"
        #expect(problems(nested).first?.hasSuffix(words) == true, "\(problems(nested))")
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        for text in ["\u{FEFF}detection:\n  types: [qr]\n", "\u{FEFF}---\ndetection:\n  types: [qr]\n", "\u{FEFF}# a comment\ndetection:\n  types: [qr]\n"] {
            let configuration = try ConfigurationFile.parse(text, file: "lookout.yml", environment: [:])
            #expect(configuration.settings.types == [.qr])
        }
        // From a file, and positions still count from the first character after the mark.
        let path = NSTemporaryDirectory() + "lookout-bom-\(UUID().uuidString).yml"
        defer { unlink(path) }
        try Data([0xEF, 0xBB, 0xBF] + Array("---\ndetection:\n  typs: [qr]\n".utf8)).write(to: URL(fileURLWithPath: path))
        #expect(throws: ConfigurationProblems.self) { try ConfigurationFile.load(path: path, environment: [:]) }
        do { _ = try ConfigurationFile.load(path: path, environment: [:]) } catch {
            #expect(error.problems.map(\.description) == ["\(path):3:3: detection.typs: unknown key; did you mean 'types'?"])
        }
    }

    @Test func aKeyGivenTwiceIsReportedWithEveryOtherProblem() {
        let found = problems("""
            detection:
              types: [qr]
              typs: [qr]
              face-rate: 2000
              types: [face]
            cameras:
              door:
                input: /dev/null
                size: big
              door:
                input: /dev/null
            events:
              dedupe: 2s
              dedupe: 3s
            """)
        #expect(found == [
            "lookout.yml:3:3: detection.typs: unknown key; did you mean 'types'?",
            "lookout.yml:4:14: detection.face-rate: '2000' is not allowed (allowed: 0 to 1000)",
            "lookout.yml:5:3: detection.types: 'types' is given twice (first at line 2)",
            "lookout.yml:9:11: cameras.door.size: 'big' is not allowed (allowed: WIDTHxHEIGHT, each side 1 to 16384, e.g. 1280x720)",
            "lookout.yml:10:3: cameras.door: a second camera named 'door' (first at line 7)",
            "lookout.yml:14:3: events.dedupe: 'dedupe' is given twice (first at line 13)",
        ])
    }

    @Test func otherShapesYAMLAllowsAreProblemsAmongTheOthers() {
        #expect(problems("detection:\n  [a]: 1\n  typs: 2\n") == [
            "lookout.yml:2:3: detection: a key is a name, not a list",
            "lookout.yml:3:3: detection.typs: unknown key; did you mean 'types'?",
        ])
        #expect(problems("detection:\n  types: [qr]\n---\nevents: {}\n") == [
            "lookout.yml:3:1: not valid YAML: a second document (---) begins here; a configuration file is one",
        ])
        #expect(problems("detection:\n  types: *codes\n") == [
            "lookout.yml:2:10: detection.types: not valid YAML: the alias *codes names no anchor (&codes) above it",
        ])
    }
}
