import Synchronization

/// Counts an output's dropped frames and batches the reports waiting for its delegate, one pending
/// report per reason at most, so a stalled delegate never makes memory grow.
final class DropCoalescer: Sendable {
    private struct State {
        var pending: [FrameDrop] = []
        var counts = DropCounts()
    }

    private let state = Locked(State())

    /// Records a drop. Returns true when no report was pending, so the caller must schedule a flush.
    func record(_ drop: FrameDrop) -> Bool {
        state.withLock { state in
            state.counts.add(drop.reason, count: drop.count)
            if let index = state.pending.firstIndex(where: { $0.reason == drop.reason }) {
                state.pending[index].count += drop.count
                return false
            }
            state.pending.append(drop)
            return state.pending.count == 1
        }
    }

    /// The reports gathered since the last call.
    func takePending() -> [FrameDrop] {
        state.withLock { state in
            let pending = state.pending
            state.pending.removeAll(keepingCapacity: true)
            return pending
        }
    }

    var counts: DropCounts { state.withLock { $0.counts } }
}
