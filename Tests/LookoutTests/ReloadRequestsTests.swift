import LookoutService
import Synchronization
import Testing

/// Reloads asked for in a burst: one after the other, the burst while one runs made one more.
@Suite struct ReloadRequestsTests {
    @Test func aBurstAskedDuringAReloadIsOneMoreReload() async {
        let requests = ReloadRequests()
        let runs = Atomic<Int>(0)
        let (started, start) = AsyncStream.makeStream(of: Int.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            await requests.run {
                let run = runs.add(1, ordering: .relaxed).newValue
                start.yield(run)
                // The first reload lasts until the burst has been asked.
                if run == 1 { for await _ in released { break } }
            }
        }
        requests.ask()
        var starts = started.makeAsyncIterator()
        #expect(await starts.next() == 1)
        for _ in 0..<10 { requests.ask() }
        release.yield()
        #expect(await starts.next() == 2, "the burst is run once after the reload it came during")
        // Asked while nothing runs: run at once.
        requests.ask()
        #expect(await starts.next() == 3)
        requests.finish()
        await running.value
        #expect(runs.load(ordering: .relaxed) == 3, "ten requests during one reload are one reload, not ten")
    }

    @Test func aRequestAskedBeforeTheEndIsStillRun() async {
        let requests = ReloadRequests()
        let runs = Atomic<Int>(0)
        requests.ask()
        requests.finish()
        await requests.run { runs.add(1, ordering: .relaxed) }
        #expect(runs.load(ordering: .relaxed) == 1)
    }
}
