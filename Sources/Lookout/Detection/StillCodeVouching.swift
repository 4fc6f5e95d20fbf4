/// How `lookout scan` weighs its looks' reads of one symbol against each other (`merged`): the
/// matrix codes' Reed-Solomon check stands alone; an EAN or UPC symbol's check digit can be fooled
/// by a sharpened edge, a threshold or a second decoder's guess, so such reads are vouched for by
/// the copies and by the other decoder.
extension StillCodeReader {
    /// The looks' reads (`Look`'s order; a list per effort) as one report per symbol. A copy's read
    /// of an EAN or UPC symbol, whose check digit a sharpened edge can fool, stands only when
    /// vouched for (`vouching`); the copies' reads of other linear codes are dropped (some have no
    /// check digit at all, and PDF417 is read by zxing-cpp alone, so nothing could confirm one).
    /// A first look's EAN or UPC read that a copy reads otherwise is dropped; two decoders that
    /// read one symbol otherwise (`takeDisputes`) leave the read a copy gives, or none. A read
    /// waiting for confirmation stands when another decoder gives it alike.
    static func merged(_ found: [[[ScannedCode]]]) -> [ScannedCode] {
        var codes = [ScannedCode]()
        var unsure = [ScannedCode]()
        var copies = [[ScannedCode]]()
        var disputes = [[ScannedCode]]()
        for (index, lists) in found.enumerated() {
            let look = Look(rawValue: index)
            let isCopy = look?.copyEfforts.isEmpty == false
            for var reads in lists {
                if look == .zbar { disputes += takeDisputes(from: &codes, readsOfZBar: &reads) }
                codes.addNewSymbols(isCopy ? reads.filter { trustedInCopies.contains($0.type) } : reads)
                if isCopy { unsure += reads.filter { vouchedInCopies.contains($0.type) } }
            }
            if isCopy { copies.append(lists.flatMap { $0 }) }
        }
        // A read of the picture a copy gives other bytes, or two decoders that disagree: the
        // copies' reads decide, or nothing stands there (its place is read again, `linearPlaces`).
        var unsettled = [ScannedCode]()
        codes.removeAll { code in
            guard vouchedInCopies.contains(code.type), vouching(for: code, by: copies) == .contradicted else { return false }
            unsettled.append(code)
            return true
        }
        for reads in disputes {
            let held = reads.filter { isHeld($0, by: copies) }
            if held.count == 1 { codes.addNewSymbols(held) } else { unsettled.append(reads[0]) }
        }
        // Two decoders agree: a weak ZBar read a copy gives too, a zxing-cpp read of UPC-E (its
        // weak check) ZBar or a copy gives too.
        let zbarReads: [ScannedCode] = found.indices.contains(Look.zbar.rawValue) ? Array(found[Look.zbar.rawValue].joined()) : []
        for index in codes.indices where codes[index].needsConfirmation {
            let code = codes[index]
            if isHeld(code, by: copies) || (code.decoder == .zxing && zbarReads.contains { $0.isSameSymbol(as: code) && $0.payload == code.payload }) {
                codes[index] = code.confirmed()
            }
        }
        for read in unsure where !codes.contains(where: { $0.isSameSymbol(as: read) })
            && !unsettled.contains(where: { $0.isSameSymbol(as: read) }) {
            switch vouching(for: read, by: copies) {
            case .contradicted: continue
            case .once: codes.append(read.toBeConfirmed())
            case .twice: codes.append(read.confirmed())
            }
        }
        return codes
    }

    /// The EAN and UPC symbols the picture's zxing-cpp reads and ZBar's give other bytes, each as
    /// its two reads, taken out of both. Their check digits are weak (UPC-E's is only the parity
    /// pattern of six digits): on small UPC-E symbols zxing-cpp's read of the picture was wrong
    /// where ZBar's was right, and neither decoder is the better one everywhere.
    static func takeDisputes(from codes: inout [ScannedCode], readsOfZBar reads: inout [ScannedCode]) -> [[ScannedCode]] {
        var disputes = [[ScannedCode]]()
        reads.removeAll { read in
            guard vouchedInCopies.contains(read.type),
                  let index = codes.firstIndex(where: { $0.isSameSymbol(as: read) && $0.payload != read.payload }) else { return false }
            disputes.append([codes.remove(at: index), read])
            return true
        }
        return disputes
    }

    /// Whether a copy holds `code`'s symbol with its bytes and none with other bytes.
    static func isHeld(_ code: ScannedCode, by copies: [[ScannedCode]]) -> Bool {
        vouching(for: code, by: copies) != .contradicted && copies.joined().contains { $0.isSameSymbol(as: code) }
    }

    /// How the copies hold an unsure read's symbol.
    enum Vouching { case contradicted, once, twice }

    /// `.contradicted` when a copy (its reads with every effort) holds `code`'s symbol with other
    /// bytes, `.twice` when at least two copies hold it with its bytes. On the development corpus
    /// single copies gave EAN-13 symbols wrong texts that passed the check digit (under glare,
    /// flattened; enlarged, a digit pair swapped), never two copies the same wrong text: a read of
    /// one copy alone is confirmed before it stands.
    static func vouching(for code: ScannedCode, by copies: [[ScannedCode]]) -> Vouching {
        var agreeing = 0
        for reads in copies {
            let same = reads.filter { $0.isSameSymbol(as: code) }
            if same.contains(where: { $0.payload != code.payload }) { return .contradicted }
            if !same.isEmpty { agreeing += 1 }
        }
        return agreeing >= 2 ? .twice : .once
    }
}
