import Dispatch
import Synchronization

/// A fixed set of reusable byte buffers: the frame memory of a pipeline stage.
///
/// The pool never grows past `count` buffers, so a consumer that holds frames makes the producer
/// drop (or, for recorded input, wait) instead of making memory grow. A buffer grows in place when
/// a larger frame arrives, which only happens while the stream's frame size settles.
// @unchecked: `slots` is guarded by the pool's lock; a buffer's memory belongs to whoever acquired it.
package final class BufferPool: @unchecked Sendable {
    /// How many buffers the pool holds.
    package let count: Int

    private struct Slot {
        var pointer: UnsafeMutableRawPointer?
        var capacity: Int
    }

    // Slots are touched only by whoever acquired them; the lock guards the free list.
    private var slots: [Slot]
    private let freeList: Locked<[Int]>
    private let available: DispatchSemaphore

    package init(count: Int) {
        precondition(count > 0, "a buffer pool needs at least one buffer")
        self.count = count
        self.slots = Array(repeating: Slot(pointer: nil, capacity: 0), count: count)
        var free = [Int]()
        free.reserveCapacity(count)
        for index in (0..<count).reversed() { free.append(index) }
        self.freeList = Locked(free)
        self.available = DispatchSemaphore(value: count)
    }

    deinit {
        for slot in slots { slot.pointer?.deallocate() }
    }

    /// Takes a free buffer of at least `capacity` bytes. Returns nil at once when none is free and
    /// `wait` is false; with `wait` true, blocks until a holder releases one.
    package func acquire(capacity: Int, wait: Bool) -> Int? {
        let result = wait ? available.wait(timeout: .distantFuture) : available.wait(timeout: .now())
        guard result == .success else { return nil }
        let index = freeList.withLock { $0.removeLast() }
        if slots[index].capacity < capacity {
            slots[index].pointer?.deallocate()
            slots[index].pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
            slots[index].capacity = capacity
        }
        return index
    }

    /// The memory of an acquired buffer.
    package func pointer(_ index: Int) -> UnsafeMutableRawPointer {
        slots[index].pointer!
    }

    package func capacity(_ index: Int) -> Int {
        slots[index].capacity
    }

    /// Grows an acquired buffer, keeping its first `preserving` bytes.
    package func grow(_ index: Int, to capacity: Int, preserving: Int) {
        guard slots[index].capacity < capacity else { return }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        if let old = slots[index].pointer {
            bigger.copyMemory(from: old, byteCount: min(preserving, slots[index].capacity))
            old.deallocate()
        }
        slots[index].pointer = bigger
        slots[index].capacity = capacity
    }

    /// Returns a buffer to the pool.
    package func release(_ index: Int) {
        freeList.withLock { $0.append(index) }
        available.signal()
    }

    /// How many buffers are free right now.
    package var freeCount: Int {
        freeList.withLock { $0.count }
    }
}
