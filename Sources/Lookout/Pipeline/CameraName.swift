/// The short name an input goes by (`camera` in lines, a level of MQTT topics, a Home Assistant
/// device, a `camera` label in metrics): given as `NAME=PATH`, or made from the path.
///
/// A name is 1 to 64 of `A-Z a-z 0-9 _ -`: it is safe in an MQTT topic (no `/`, `+`, `#`), a file
/// name, a URL path and a Prometheus label.
public enum CameraName {
    public static let maximumLength = 64

    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumLength && name.unicodeScalars.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                           || scalar == "_" || scalar == "-")
    }

    /// Splits `NAME=PATH` when the text before the first `=` is a valid name; otherwise the whole
    /// text is the path (a URL's query, `rtsp://h/s?a=b`, keeps its `=`). The command line refuses
    /// the rest of the texts with a `=` that are neither a URL nor an existing file as a bad name;
    /// a path holding `=` is always reachable as `NAME=PATH` (the first `=` splits).
    public static func split(_ argument: String) -> (name: String?, path: String) {
        if let equals = argument.firstIndex(of: "=") {
            let name = String(argument[..<equals])
            if isValid(name) { return (name, String(argument[argument.index(after: equals)...])) }
        }
        return (nil, argument)
    }

    /// A name made from a path or URL: `/dev/video0` → `video0`, `hall.mjpeg` → `hall`,
    /// `rtsp://user@192.168.1.5:554/live` → `192_168_1_5-live`, `-` → `stdin`.
    public static func derived(from path: String) -> String {
        if path == "-" { return "stdin" }
        var base: Substring
        if let scheme = path.firstRange(of: "://") {
            // host and the path's last part; never the user or password.
            var rest = path[scheme.upperBound...]
            if let at = rest.firstIndex(of: "@"), rest[..<at].firstIndex(of: "/") == nil { rest = rest[rest.index(after: at)...] }
            let host = rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" }
            let tail = rest.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/").dropFirst().last ?? "" } ?? ""
            base = tail.isEmpty ? host : host + "-" + (tail.split(separator: ".").first ?? tail)
        } else {
            base = path.split(separator: "/").last ?? Substring(path)
            if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        }
        var name = String(base.unicodeScalars.map { isAllowed($0) ? Character($0) : "_" })
        if name.utf8.count > maximumLength { name = String(name.prefix(maximumLength)) }
        return name.isEmpty || name.allSatisfy({ $0 == "_" }) ? "camera" : name
    }
}
