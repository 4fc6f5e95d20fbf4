extension Array where Element == ScannedCode {
    /// Adds each of `codes` that is not a symbol already here: one of the same type whose box holds
    /// its centre, or whose centre its box holds, is the same symbol read again (by another reader,
    /// or on a prepared copy), and the first reading stands. The same code elsewhere in the picture
    /// is another symbol and is added. Returns how many were added.
    @discardableResult
    mutating func addNewSymbols(_ codes: [ScannedCode]) -> Int {
        var added = 0
        for code in codes where !contains(where: { $0.isSameSymbol(as: code) }) {
            append(code)
            added += 1
        }
        return added
    }
}

extension ScannedCode {
    /// This code with its corners moved by (`x`, `y`): from a region's or copy's pixels to the plane's.
    func offset(x: Int, y: Int) -> ScannedCode {
        var moved = self
        moved.corners = corners.map { Point(x: $0.x + Double(x), y: $0.y + Double(y)) }
        return moved
    }

    /// Whether `other` is this symbol: the same type, and either one's centre inside the other's box.
    func isSameSymbol(as other: ScannedCode) -> Bool {
        guard type == other.type else { return false }
        let mine = Rect.enclosing(corners), theirs = Rect.enclosing(other.corners)
        if mine.contains(Point(x: theirs.midX, y: theirs.midY)) || theirs.contains(Point(x: mine.midX, y: mine.midY)) { return true }
        // A linear symbol is often reported as the one line a scan crossed, and another reading of it
        // as a band beside that line: the same bytes within half a symbol's length are one symbol.
        // The same code on the next label of a shelf is a whole symbol away.
        guard payload == other.payload else { return false }
        let reach = max(mine.width, mine.height, theirs.width, theirs.height) / 2
        return ((mine.midX - theirs.midX) * (mine.midX - theirs.midX) + (mine.midY - theirs.midY) * (mine.midY - theirs.midY)).squareRoot() < reach
    }
}
