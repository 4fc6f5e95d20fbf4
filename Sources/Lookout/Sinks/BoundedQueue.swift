/// A first-in first-out queue of at most `capacity` elements that drops its oldest element to make
/// room, counting what it dropped. Storage is allocated once (a ring).
struct BoundedQueue<Element> {
    let capacity: Int
    private var storage: [Element?]
    private var head = 0
    private(set) var count = 0
    /// Elements dropped to make room, since the queue was made.
    private(set) var dropped = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a bounded queue holds at least one element")
        self.capacity = capacity
        storage = Array(repeating: nil, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends an element; returns true when the oldest was dropped to make room.
    @discardableResult
    mutating func append(_ element: Element) -> Bool {
        var droppedOldest = false
        if count == capacity {
            storage[head] = nil
            head = (head + 1) % capacity
            count -= 1
            dropped += 1
            droppedOldest = true
        }
        storage[(head + count) % capacity] = element
        count += 1
        return droppedOldest
    }

    /// Puts an element back at the front (one that could not be sent after all); when full, the
    /// element is dropped instead, since it is the oldest.
    mutating func prepend(_ element: Element) {
        guard count < capacity else {
            dropped += 1
            return
        }
        head = (head - 1 + capacity) % capacity
        storage[head] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % capacity
        count -= 1
        return element
    }
}
