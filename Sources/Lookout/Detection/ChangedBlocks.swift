/// Which 16x16-pixel blocks of a frame moved, as the motion gate saw them: what a detector
/// gathers between its looks, to search only where something changed. A grid it has not seen
/// (the first frame, a new size) counts as changed everywhere.
struct ChangedBlocks: Equatable {
    /// Frame pixels per block side, whatever the plane's size.
    static let blockSize = MotionGate.blockSize
    /// Separate changed parts given as such at most (see `merged`).
    static let mostRegions = 24

    private(set) var columns = 0
    private(set) var rows = 0
    /// The frame's size, in frame pixels.
    private(set) var frameWidth = 0
    private(set) var frameHeight = 0
    private var flags: [Bool] = []
    /// Every block changed (or the grid is unknown): no need to look at the flags.
    private(set) var isEverywhere = true
    private(set) var count = 0

    /// Everything changed: what a detector starts from, and what a frame without a gate gives.
    static let everywhere = ChangedBlocks()

    var isEmpty: Bool { !isEverywhere && count == 0 }

    /// The share of the frame that changed, 0 to 1.
    var fraction: Double {
        if isEverywhere { return 1 }
        return flags.isEmpty ? 0 : Double(count) / Double(flags.count)
    }

    /// Sets the grid for a `frameWidth` x `frameHeight` frame with nothing changed, keeping the
    /// storage (no allocation once the grid is known).
    mutating func reset(frameWidth: Int, frameHeight: Int) {
        let columns = (frameWidth + Self.blockSize - 1) / Self.blockSize
        let rows = (frameHeight + Self.blockSize - 1) / Self.blockSize
        (self.columns, self.rows, self.frameWidth, self.frameHeight) = (columns, rows, frameWidth, frameHeight)
        if flags.count != columns * rows {
            flags = Array(repeating: false, count: columns * rows)
        } else {
            flags.withUnsafeMutableBufferPointer { $0.update(repeating: false) }
        }
        isEverywhere = false
        count = 0
    }

    /// Marks everything changed (a new grid, a frame the gate did not compare).
    mutating func markEverywhere() {
        isEverywhere = true
    }

    mutating func mark(column: Int, row: Int) {
        let index = row * columns + column
        guard !flags[index] else { return }
        flags[index] = true
        count += 1
    }

    func contains(column: Int, row: Int) -> Bool {
        isEverywhere || flags[row * columns + column]
    }

    /// Adds what `other` saw changed: different grids make everything changed.
    mutating func formUnion(_ other: ChangedBlocks) {
        guard !isEverywhere else { return }
        if columns == 0 {
            // Cleared before any grid was known: nothing changed but what `other` saw.
            self = other
            return
        }
        guard !other.isEverywhere, other.columns == columns, other.rows == rows else {
            isEverywhere = true
            return
        }
        guard other.count > 0 else { return }
        flags.withUnsafeMutableBufferPointer { mine in
            other.flags.withUnsafeBufferPointer { theirs in
                for index in 0..<mine.count where theirs[index] && !mine[index] {
                    mine[index] = true
                    count += 1
                }
            }
        }
    }

    /// Forgets what changed, keeping the grid: a detector has looked.
    mutating func clear() {
        guard columns > 0 else {
            isEverywhere = false
            count = 0
            return
        }
        reset(frameWidth: frameWidth, frameHeight: frameHeight)
    }

    /// The changed parts as rectangles in frame pixels: the bounding box of each group of
    /// touching blocks, grown by `margin` pixels on every side and clipped to the frame, with
    /// rectangles that then overlap merged. The whole frame when everything changed.
    func regions(margin: Int, frameWidth fallbackWidth: Int, frameHeight fallbackHeight: Int) -> [Rect] {
        if isEverywhere || columns == 0 {
            return [Rect(x: 0, y: 0, width: Double(fallbackWidth), height: Double(fallbackHeight))]
        }
        guard count > 0 else { return [] }
        var seen = [Bool](repeating: false, count: flags.count)
        var stack: [Int] = []
        var boxes: [Rect] = []
        for start in flags.indices where flags[start] && !seen[start] {
            var (minColumn, maxColumn, minRow, maxRow) = (Int.max, Int.min, Int.max, Int.min)
            seen[start] = true
            stack.append(start)
            while let index = stack.popLast() {
                let (row, column) = index.quotientAndRemainder(dividingBy: columns)
                (minColumn, maxColumn) = (min(minColumn, column), max(maxColumn, column))
                (minRow, maxRow) = (min(minRow, row), max(maxRow, row))
                // Eight neighbours: blocks touching at a corner are one moving thing.
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let (y, x) = (row + dy, column + dx)
                        guard y >= 0, y < rows, x >= 0, x < columns else { continue }
                        let neighbour = y * columns + x
                        if flags[neighbour] && !seen[neighbour] {
                            seen[neighbour] = true
                            stack.append(neighbour)
                        }
                    }
                }
            }
            let left = max(0, minColumn * Self.blockSize - margin), top = max(0, minRow * Self.blockSize - margin)
            let right = min(frameWidth, (maxColumn + 1) * Self.blockSize + margin)
            let bottom = min(frameHeight, (maxRow + 1) * Self.blockSize + margin)
            boxes.append(Rect(x: Double(left), y: Double(top), width: Double(right - left), height: Double(bottom - top)))
        }
        return Self.merged(boxes)
    }

    /// Rectangles merged until none overlaps another (each merge takes the pair's bounding box).
    /// Past `mostRegions` (scattered noise of a dark camera), their one bounding box: merging
    /// hundreds pair by pair would cost more than searching it.
    static func merged(_ boxes: [Rect]) -> [Rect] {
        if boxes.count > mostRegions, let first = boxes.first {
            var left = first.x, top = first.y, right = first.maxX, bottom = first.maxY
            for box in boxes {
                (left, top) = (min(left, box.x), min(top, box.y))
                (right, bottom) = (max(right, box.maxX), max(bottom, box.maxY))
            }
            return [Rect(x: left, y: top, width: right - left, height: bottom - top)]
        }
        var boxes = boxes
        var merging = true
        while merging {
            merging = false
            outer: for i in boxes.indices {
                for j in boxes.indices where j > i && boxes[i].intersection(boxes[j]).area > 0 {
                    let a = boxes[i], b = boxes[j]
                    let left = min(a.x, b.x), top = min(a.y, b.y)
                    boxes[i] = Rect(x: left, y: top, width: max(a.maxX, b.maxX) - left, height: max(a.maxY, b.maxY) - top)
                    boxes.remove(at: j)
                    merging = true
                    break outer
                }
            }
        }
        return boxes
    }
}
