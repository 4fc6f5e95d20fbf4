extension Array where Element == ScannedCode {
    /// Adds each of `codes` that is not a symbol already here (`isSameSymbol`: read again by another
    /// reader, or on a prepared copy), and the first reading stands. The same code elsewhere in the picture
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
    /// This read with its corners taken through `transform` (from a copy into its place).
    func placed(_ transform: (Point) -> Point) -> ScannedCode {
        var moved = self
        moved.corners = corners.map(transform)
        return moved
    }

    /// This code with its corners moved by (`x`, `y`): from a region's or copy's pixels to the plane's.
    func offset(x: Int, y: Int) -> ScannedCode {
        var moved = self
        moved.corners = corners.map { Point(x: $0.x + Double(x), y: $0.y + Double(y)) }
        return moved
    }

    /// Whether `other` is this symbol: the same type, and either one's centre inside the other's
    /// box; or, for a linear code, the same bytes side by side within the band its bars make.
    func isSameSymbol(as other: ScannedCode) -> Bool {
        guard type == other.type else { return false }
        let mine = Rect.enclosing(corners), theirs = Rect.enclosing(other.corners)
        if mine.contains(Point(x: theirs.midX, y: theirs.midY)) || theirs.contains(Point(x: mine.midX, y: mine.midY)) { return true }
        // A linear symbol is often reported as the one line a scan crossed, and another reading of
        // it as a band beside that line: the same bytes, less than half a symbol apart along its
        // length and less than its bars' height across. The same code on the label above or beside
        // is at least that far away.
        guard !Self.matrixTypes.contains(type), payload == other.payload else { return false }
        // The longer box tells which way the symbol lies: a line is unmistakable, and a UPC-E
        // symbol's band is taller than it is long.
        let elongation = { (box: Rect) in max(box.width, box.height) / max(min(box.width, box.height), 1) }
        let longer = elongation(mine) >= elongation(theirs) ? mine : theirs
        let lengthwise = longer.width >= longer.height
        let along = lengthwise ? abs(mine.midX - theirs.midX) : abs(mine.midY - theirs.midY)
        let across = lengthwise ? abs(mine.midY - theirs.midY) : abs(mine.midX - theirs.midX)
        let lengths = lengthwise ? (mine.width, theirs.width) : (mine.height, theirs.height)
        let heights = lengthwise ? (mine.height, theirs.height) : (mine.width, theirs.width)
        return along < min(lengths.0, lengths.1) / 2 && across < max(heights.0, heights.1)
    }

    /// The symbols whose box is the symbol's own: two of them side by side never overlap.
    static let matrixTypes: Set<MetadataObjectType> = [.qr, .aztec, .dataMatrix, .pdf417]
}
