import Foundation
import Testing
@testable import Lookout

/// Event ids: `<node>/<camera>/<number>`, numbers kept in the state directory across runs (never
/// repeated, reserved a block at a time), or counted from the clock without one.
@Suite("Event numbering")
struct EventNumberingTests {
    private static func numbers(_ numbering: inout EventNumbering, _ count: Int) -> [UInt64] {
        (0..<count).map { _ in UInt64(numbering.nextID().split(separator: "/").last!)! }
    }

    @Test func numbersGoOnAcrossRunsAndNeverRepeat() throws {
        let state = try ScratchFolder()
        let directory = state.path + "/a/b"
        var seen: [UInt64] = []
        for run in 0..<3 {
            let file = try EventSequenceFile.open(stateDirectory: directory, name: "node-cam", warn: { Issue.record("\($0)") })
            var numbering = EventNumbering(node: "node", camera: "cam", storage: file)
            // The third run crosses a block: it reserves the next one before using it.
            seen += Self.numbers(&numbering, run == 2 ? Int(EventSequenceFile.block) + 5 : 3)
        }
        #expect(Array(seen.prefix(3)) == [1, 2, 3])
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "only growing")
        let stored = try String(contentsOfFile: directory + "/event-ids/node-cam", encoding: .utf8)
        #expect(UInt64(stored.filter(\.isNumber)).map { $0 > seen.last! } == true, "the file is past every number given: \(stored)")
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/event-ids")[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func theIDNamesNodeCameraAndNumber() throws {
        let state = try ScratchFolder()
        let file = try EventSequenceFile.open(stateDirectory: state.path, name: "lookout-host/x-door", warn: { _ in })
        var numbering = EventNumbering(node: "lookout-host/x", camera: "door", storage: file)
        #expect(numbering.nextID() == "lookout-host/x/door/1")
        // One path component, whatever the node holds.
        #expect(FileManager.default.fileExists(atPath: state.path + "/event-ids/lookout-host%2Fx-door"))
    }

    @Test func oneFileIsSharedWithinAProcess() throws {
        let state = try ScratchFolder()
        let first = try EventSequenceFile.open(stateDirectory: state.path, name: "n-cam", warn: { _ in })
        let second = try EventSequenceFile.open(stateDirectory: state.path, name: "n-cam", warn: { _ in })
        #expect(first === second)
        #expect([first.next(), second.next(), first.next()] == [1, 2, 3])
    }

    @Test func aDamagedFileIsSaidAndNumbersStartPastAnyItCouldHaveGiven() throws {
        let state = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: state.path + "/event-ids", withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: state.path + "/event-ids/n-cam"))
        let warnings = Locked<[String]>([])
        let before = UInt64(Date().timeIntervalSince1970 * 1000) - 1000
        let file = try EventSequenceFile.open(stateDirectory: state.path, name: "n-cam") { line in warnings.withLock { $0.append(line) } }
        #expect(file.next() >= before)
        #expect(warnings.withLock { $0 } == ["event ids: \(state.path)/event-ids/n-cam holds no number; numbering goes on from \(file.next() - 1)"])
    }

    @Test func aLinkInTheStateDirectoryIsRefusedNotFollowed() throws {
        let state = try ScratchFolder()
        let elsewhere = try ScratchFolder()
        try FileManager.default.createSymbolicLink(atPath: state.path + "/event-ids", withDestinationPath: elsewhere.path)
        #expect(throws: EventSequenceError.self) {
            try EventSequenceFile.open(stateDirectory: state.path, name: "n-cam", warn: { _ in })
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: elsewhere.path)) == [])
    }

    @Test func withoutAStateDirectoryNumbersCountFromTheClock() {
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        var numbering = EventNumbering(node: "n", camera: "cam")
        let numbers = Self.numbers(&numbering, 3)
        #expect(numbers[0] >= before && numbers[0] < before + 60_000_000)
        #expect(numbers == [numbers[0], numbers[0] + 1, numbers[0] + 2])
    }
}
