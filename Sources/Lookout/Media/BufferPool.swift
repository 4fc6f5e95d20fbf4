import Dispatch

/// A fixed set of reusable byte buffers: the frame memory of a pipeline stage.
///
/// The pool never grows past `count` buffers, so a consumer that holds frames makes the producer
/// drop (or, for recorded input, wait) instead of making memory grow. A buffer is made larger when
/// acquired for a larger frame, which only happens while the stream's frame size settles.
///
/// The table of buffers is behind the pool's lock; a buffer's bytes belong to whoever acquired it
/// until it is released, which is what `PixelBuffer` and `FramePicture` hold.
package final class BufferPool: Sendable {
    /// How many buffers the pool holds.
    package let count: Int

    private struct Slot {
        var pointer: UnsafeMutableRawPointer?
        var capacity: Int
    }

    private struct Table {
        var slots: [Slot]
        var free: [Int]
    }

    private let table: Locked<Table>
    private let available: DispatchSemaphore

    package init(count: Int) {
        precondition(count > 0, "a buffer pool needs at least one buffer")
        self.count = count
        var free = [Int]()
        free.reserveCapacity(count)
        for index in (0..<count).reversed() { free.append(index) }
        self.table = Locked(Table(slots: Array(repeating: Slot(pointer: nil, capacity: 0), count: count), free: free))
        self.available = DispatchSemaphore(value: count)
    }

    deinit {
        table.withLock { table in
            for slot in table.slots { slot.pointer?.deallocate() }
        }
    }

    /// Takes a free buffer of at least `capacity` bytes. Returns nil at once when none is free and
    /// `wait` is false; with `wait` true, blocks until a holder releases one.
    package func acquire(capacity: Int, wait: Bool) -> Int? {
        let result = wait ? available.wait(timeout: .distantFuture) : available.wait(timeout: .now())
        guard result == .success else { return nil }
        return table.withLock { table in
            let index = table.free.removeLast()
            if table.slots[index].capacity < capacity {
                table.slots[index].pointer?.deallocate()
                table.slots[index].pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
                table.slots[index].capacity = capacity
            }
            return index
        }
    }

    /// The memory of an acquired buffer.
    package func pointer(_ index: Int) -> UnsafeMutableRawPointer {
        table.withLock { $0.slots[index].pointer! }
    }

    /// Returns a buffer to the pool.
    package func release(_ index: Int) {
        table.withLock { $0.free.append(index) }
        available.signal()
    }

    /// How many buffers are free right now.
    package var freeCount: Int {
        table.withLock { $0.free.count }
    }
}
