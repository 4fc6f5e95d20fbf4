/// GS1 Digital Link URIs (GS1 Digital Link standard, URI syntax): `http(s)://` any host, any path
/// of the brand's own, then a primary key AI and its value as path segments (`/01/09506000134352`),
/// its key qualifiers in their order (`/22/…`, `/10/…`, `/21/…` for a GTIN), and data attributes as
/// query parameters whose names are AIs (`?17=271231&3103=000195`); query parameters with other
/// names (`linkType`...) are the resolver's and left out. Only the uncompressed form is read.
extension GS1Data {
    /// Primary key AIs and the sequences of key qualifiers each may have (any of each sequence,
    /// in its order; `|` alternatives as separate sequences).
    static let digitalLinkKeys: [String: [[String]]] = [
        "00": [], "01": [["22", "10", "21"], ["235"]], "253": [], "255": [], "401": [], "402": [],
        "414": [["254"], ["7040"]], "415": [["8020"]], "417": [["7040"]], "8003": [], "8004": [["7040"]],
        "8006": [["22", "10", "21"]], "8010": [["8011"]], "8013": [], "8017": [["8019"]], "8018": [["8019"]],
    ]

    /// The elements of a Digital Link URI, or nil when `payload` is not one: not an http(s) URI of
    /// printable ASCII, no primary key followed to the path's end by allowed qualifiers, an invalid
    /// value (a GTIN's check digit, a date...), a query parameter named by an unknown AI.
    static func digitalLink(_ payload: [UInt8]) -> GS1Data? {
        guard let afterScheme = schemeEnd(payload), payload.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        var rest = payload[afterScheme...]
        if let fragment = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<fragment] }
        var query: ArraySlice<UInt8> = []
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[(mark + 1)...]
            rest = rest[..<mark]
        }
        guard let pathStart = rest.firstIndex(of: UInt8(ascii: "/")), pathStart > rest.startIndex else { return nil }
        var segments = rest[(pathStart + 1)...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if segments.last?.isEmpty == true { segments.removeLast() } // a trailing slash
        guard var elements = pathElements(segments) else { return nil }
        for parameter in query.split(separator: UInt8(ascii: "&")) {
            let parts = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0].allSatisfy({ (0x30...0x39).contains($0) }), !parts[0].isEmpty else { continue }
            let ai = String(decoding: parts[0], as: UTF8.self)
            guard parts.count == 2, digitalLinkKeys[ai] == nil, let spec = GS1ApplicationIdentifier.table[ai],
                  let value = percentDecoded(parts[1]), spec.accepts(value[...]),
                  add(ai, value[...], to: &elements) else { return nil }
        }
        return GS1Data(elements: elements, isDigitalLink: true)
    }

    /// Where the authority starts after `http://` or `https://` (either case), or nil.
    private static func schemeEnd(_ payload: [UInt8]) -> Int? {
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.utf8)
            if payload.count > prefix.count, zip(payload, prefix).allSatisfy({ $0 | 0x20 == $1 }) { return prefix.count }
        }
        return nil
    }

    /// The primary key and its qualifiers at the end of the path: the first segment naming a
    /// primary key from which the rest of the path reads as such, pair by pair.
    private static func pathElements(_ segments: [ArraySlice<UInt8>]) -> [Element]? {
        for start in segments.indices where (segments.count - start) % 2 == 0 {
            let key = String(decoding: segments[start], as: UTF8.self)
            guard let sequences = digitalLinkKeys[key] else { continue }
            var elements: [Element] = []
            var allowed = sequences  // the sequences the qualifiers so far fit, each left with what may follow
            var valid = true
            for pair in stride(from: start, to: segments.count, by: 2) {
                let ai = String(decoding: segments[pair], as: UTF8.self)
                if pair > start {
                    allowed = allowed.compactMap { sequence in sequence.firstIndex(of: ai).map { Array(sequence[($0 + 1)...]) } }
                    if allowed.isEmpty { valid = false; break }
                }
                guard let spec = GS1ApplicationIdentifier.table[ai], let value = percentDecoded(segments[pair + 1]),
                      spec.accepts(value[...]), add(ai, value[...], to: &elements) else { valid = false; break }
            }
            if valid { return elements }
        }
        return nil
    }

    /// `%XX` (either case) as its byte; nil for a malformed escape.
    static func percentDecoded(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }
        while index < text.endIndex {
            if text[index] == UInt8(ascii: "%") {
                guard index + 2 < text.endIndex, let high = hex(text[index + 1]), let low = hex(text[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(text[index])
                index += 1
            }
        }
        return bytes
    }
}
