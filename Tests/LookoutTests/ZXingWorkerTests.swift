import Foundation
import Testing
import CZXing
@testable import Lookout

/// The long-lived zxing-cpp worker behind video reads: restarted and counted when it dies, by a
/// hostile image or a kill, and gone without a trace when its reader goes.
@Suite("zxing worker")
struct ZXingWorkerTests {
    static func frame(_ name: String) throws -> PixelBuffer { try StillImage.load(path: Fixtures.path(name)) }

    /// The inodes of the readers' shared images (memfd "lookout-zxing") a process maps, by the
    /// mapping's start: suites beside this one have readers too.
    static func sharedImageInodes(of process: String = "self") throws -> [UInt: Substring] {
        // Read to the end: procfs reports a size of 0.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/\(process)/maps")).readDataToEndOfFile()
        var inodes: [UInt: Substring] = [:]
        for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") where line.contains("/memfd:lookout-zxing") {
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ")
            guard fields.count > 4, let start = fields[0].split(separator: "-").first.flatMap({ UInt($0, radix: 16) }) else { continue }
            inodes[start] = fields[4]
        }
        return inodes
    }

    static func processExists(_ pid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }

    @Test func aKilledWorkerIsRestartedAndCounted() throws {
        let image = try Self.frame("aztec-bcbp.png")
        let reader = ZXingFrameReader(types: [.aztec])
        #expect(reader.readFrame(image).map(\.type) == [.aztec])
        let pid = try #require(reader.workerProcessID)
        #expect(reader.workerStarts == 1)
        #expect(kill(pid, SIGKILL) == 0)
        #expect(eventually { !Self.processExists(pid) || (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") == true })
        // The look that found the worker dead is lost and counted; the next one has a new worker.
        #expect(reader.readFrame(image).isEmpty)
        #expect(reader.failures == 1 && !Self.processExists(pid))
        #expect(reader.readFrame(image).map(\.payload) == [Array(ZXingKindsScanTests.boardingPass.utf8)])
        #expect(reader.workerStarts == 2 && reader.workerProcessID != pid)
    }

    /// Debian's zxing-cpp 1.4 fails an assertion on this EAN-13: the worker dies on it, that image
    /// is skipped and counted, and the next image is read by a new worker.
    @Test func anImageTheWorkerDiesOnIsSkipped() throws {
        let worker = try #require(lk_zx_worker_create())
        defer { lk_zx_worker_destroy(worker) }
        let hostile = try Self.frame("ean13-zxing-abort.png")
        let scanner = ZXingScanner(types: [.ean13])
        func read(_ image: PixelBuffer) -> [ScannedCode] {
            scanner.scan(plane: image.baseAddress, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                         regions: [lk_zx_region(x: 0, y: 0, width: Int32(image.width), height: Int32(image.height), shrink: 1)],
                         budget: 0, timeout: 10_000, worker: worker)
        }
        #expect(read(hostile).isEmpty)
        #expect(scanner.failures == 1 && lk_zx_worker_pid(worker) == -1)
        let ean = try Self.frame("ean13.png")
        #expect(read(ean).map(\.payload) == [Array("4006381333931".utf8)])
        #expect(scanner.failures == 1 && lk_zx_worker_starts(worker) == 2)
    }

    /// The worker holds none of the parent's descriptors, and its reader's end leaves no process
    /// and no descriptor behind; ending twice is harmless.
    @Test func teardownLeavesNothingBehind() throws {
        let image = try Self.frame("datamatrix-gs1.png")
        var pid: Int32 = 0
        var inode: Substring = ""
        do {
            let reader = ZXingFrameReader(types: [.dataMatrix])
            #expect(reader.readFrame(image).map(\.type) == [.dataMatrix])
            pid = try #require(reader.workerProcessID)
            // This process and its worker map the same image, and the worker no other reader's (it
            // is not a fork: it holds nothing of this process but its socket and image).
            let address = try #require(reader.sharedImageAddress)
            inode = try #require(try Self.sharedImageInodes()[address])
            #expect(try Array(Self.sharedImageInodes(of: "\(pid)").values) == [inode])
            let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) }.sorted()
            #expect(held.count == 4 && held.prefix(3) == [0, 1, 2], "the worker holds \(held)")
        }
        #expect(!Self.processExists(pid))
        #expect(try !Self.sharedImageInodes().values.contains(inode))
        let worker = try #require(lk_zx_worker_create())
        lk_zx_worker_destroy(worker)
        lk_zx_worker_destroy(nil)
    }

    /// Without its helper, zxing-cpp reads nothing: `lookout scan` says why at start, and each
    /// look fails and is counted; nothing else stops.
    @Test func aMissingHelperIsSaidAndEachLookCounted() throws {
        let result = try lookout(["scan", "--types", "aztec,ean13", Fixtures.path("aztec-bcbp.png"), Fixtures.path("ean13.png")],
                                 environment: ["LOOKOUT_ZXING_HELPER": "/nonexistent/lookout-zxing"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("zxing-cpp's helper /nonexistent/lookout-zxing cannot be run (No such file or directory)"),
                "\(result.stderr)")
        // ZBar still reads the EAN-13; the Aztec symbol needs zxing-cpp.
        #expect(result.lines.count == 1 && result.lines.first?.contains(#""value":"4006381333931""#) == true, "\(result.lines)")
    }

    /// The helper is Lookout's, not a user's: run by hand it says so and exits 64.
    @Test func theHelperRunByHandSaysWhatItIs() throws {
        let helper = URL(fileURLWithPath: lookoutBinary).deletingLastPathComponent().appendingPathComponent("lookout-zxing").path
        let run = try BackgroundProcess(helper, [])
        #expect(run.waitForExit() == 64)
        #expect(run.errors.lines == ["lookout-zxing: Lookout's zxing-cpp reader; lookout starts it, not a user"])
    }
}
