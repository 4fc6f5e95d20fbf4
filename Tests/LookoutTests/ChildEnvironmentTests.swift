import Foundation
import Testing

/// Children of the tests start from a clean environment: the runner's own variables (a test run
/// under systemd, or with LOOKOUT_CONFIG set in the shell) never reach them.
@Suite("Test children's environment")
struct ChildEnvironmentTests {
    @Test func onlyTheInheritedVariablesAndTheGivenOnesReachAChild() {
        let runner = ["PATH": "/usr/bin", "HOME": "/root", "NOTIFY_SOCKET": "/run/systemd/notify", "STATE_DIRECTORY": "/var/lib/x",
                      "LOOKOUT_CONFIG": "/etc/lookout.yml", "JOURNAL_STREAM": "8:9"]
        let child = childEnvironment(["LOOKOUT_CONFIG": "given.yml"], runner: runner)
        #expect(child == ["PATH": "/usr/bin", "HOME": "/root", "LOOKOUT_CONFIG": "given.yml"])
    }

    @Test func aSpawnedChildDoesNotSeeTheRunnersOtherVariables() throws {
        // A variable no other test reads, set in this process as a runner's shell would.
        setenv("LOOKOUT_TEST_RUNNER_ONLY", "leaked", 1)
        defer { unsetenv("LOOKOUT_TEST_RUNNER_ONLY") }
        let child = try BackgroundProcess("/usr/bin/env", [], environment: ["LOOKOUT_TEST_GIVEN": "given"])
        #expect(child.waitForExit() == 0)
        let lines = child.output.lines
        #expect(lines.contains("LOOKOUT_TEST_GIVEN=given"))
        #expect(lines.contains { $0.hasPrefix("PATH=") })
        #expect(lines.contains { $0.hasPrefix("XDG_STATE_HOME=") }, "a scratch state home")
        #expect(!lines.contains { $0.hasPrefix("LOOKOUT_TEST_RUNNER_ONLY=") }, "\(lines)")
    }
}

/// A child the tests give up on goes with what it started.
@Suite("Test children's processes")
struct ChildProcessGroupTests {
    /// Whether `pid` runs (a zombie waiting for its reaper does not).
    static func runs(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    @Test func aGrandchildIsKilledWithTheChild() throws {
        var child: BackgroundProcess? = try BackgroundProcess("/bin/sh", ["-c", "sleep 300 & echo $!; wait"])
        #expect(child?.output.wait(timeout: 60) { !$0.isEmpty } == true)
        let grandchild = try #require(child?.output.lines.first.flatMap { Int32($0) })
        #expect(Self.runs(grandchild))
        child = nil
        #expect(eventually(timeout: 60) { !Self.runs(grandchild) }, "sleep \(grandchild) outlived its parent's end")
        if Self.runs(grandchild) { kill(grandchild, SIGKILL) }
    }
}
