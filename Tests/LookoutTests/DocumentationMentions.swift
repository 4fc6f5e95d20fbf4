import Foundation

/// What a Markdown document names that must exist: options of `lookout`, web routes, and relative
/// links. Read as a person reads it: options count where they are Lookout's (on a line or in a code
/// span that runs `lookout`, or in a code span that starts with an option); routes are code spans
/// that are paths not on the file system, and the paths of URLs on the web view's host and port.
struct DocumentationMentions {
    /// An option as written, with the command it was written for (`["run"]`, `["config", "check"]`;
    /// `nil` when the text does not say, as in a table of options).
    struct Option: Hashable {
        var name: String
        var command: [String]?
        var file: String
        var line: Int
    }

    struct Link: Hashable {
        var target: String
        var file: String
        var line: Int
    }

    struct Route: Hashable {
        var path: String
        var file: String
        var line: Int
    }

    private(set) var options: [Option] = []
    private(set) var routes: [Route] = []
    private(set) var links: [Link] = []
    /// Every heading's anchor, as GitHub makes it.
    private(set) var anchors: Set<String> = []

    /// The first path segments of file-system paths: a code span starting with one is a path,
    /// not a web route.
    static let fileSystemRoots: Set<String> = ["dev", "etc", "var", "usr", "proc", "opt", "bin", "sbin",
                                                "tmp", "lib", "sys", "run", "home", "srv", "mnt", "media", "boot", "root"]
    /// Subcommands, and the subcommands of those, as `lookout` has them.
    let subcommands: [String: Set<String>]

    init(markdown: String, file: String, subcommands: [String: Set<String>]) {
        self.subcommands = subcommands
        let text = Self.withoutComments(markdown)
        var paragraph: [(Int, String)] = []
        var fence: String?
        var command = ""
        var commandLine = 0
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let number = index + 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) {
                    fence = nil
                    continue
                }
                // A command continued with `\` is one command.
                if command.isEmpty { commandLine = number }
                if trimmed.hasSuffix("\\") {
                    command += trimmed.dropLast() + " "
                    continue
                }
                command += trimmed
                addOptions(inCode: command, file: file, line: commandLine)
                addRoutes(inURLsOf: command, file: file, line: commandLine)
                command = ""
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                addParagraph(paragraph, file: file)
                paragraph = []
                fence = String(trimmed.prefix(3))
                continue
            }
            if trimmed.isEmpty {
                addParagraph(paragraph, file: file)
                paragraph = []
                continue
            }
            if trimmed.hasPrefix("#") {
                addParagraph(paragraph, file: file)
                paragraph = []
                anchors.insert(Self.anchor(ofHeading: String(trimmed.drop { $0 == "#" })))
            }
            paragraph.append((number, line))
        }
        addParagraph(paragraph, file: file)
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
    static func anchor(ofHeading heading: String) -> String {
        let words = heading.trimmingCharacters(in: .whitespaces).lowercased()
        return String(words.unicodeScalars.compactMap { scalar -> Character? in
            if scalar == " " { return "-" }
            if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
            return nil
        })
    }

    private static func withoutComments(_ text: String) -> String {
        // Keeps the lines (for line numbers), drops what is between <!-- and -->.
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "<!--") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "-->") else { return result }
            result += String(repeating: "\n", count: rest[open.lowerBound..<close.upperBound].filter { $0 == "\n" }.count)
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    private mutating func addParagraph(_ lines: [(Int, String)], file: String) {
        guard let first = lines.first?.0 else { return }
        let text = lines.map(\.1).joined(separator: "\n")
        // Code spans (may wrap across lines), and links outside them.
        var outside = ""
        var cursor = text.startIndex
        while let open = text[cursor...].firstIndex(of: "`") {
            outside += text[cursor..<open]
            let after = text.index(after: open)
            guard let close = text[after...].firstIndex(of: "`") else {
                cursor = open
                break
            }
            let line = first + text[..<open].filter { $0 == "\n" }.count
            let span = String(text[after..<close]).replacingOccurrences(of: "\n", with: " ")
            addOptions(inSpan: span, file: file, line: line)
            addRoute(inSpan: span, file: file, line: line)
            cursor = text.index(after: close)
        }
        outside += text[cursor...]
        addLinks(in: outside, first: first, file: file)
    }

    private mutating func addLinks(in text: String, first: Int, file: String) {
        let pattern = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/
        for match in text.matches(of: pattern) {
            let target = String(match.output.1)
            if target.contains("://") || target.hasPrefix("mailto:") { continue }
            let line = first + text[..<match.range.lowerBound].filter { $0 == "\n" }.count
            links.append(Link(target: target, file: file, line: line))
        }
    }

    /// A span that runs `lookout` gives the options after it; a span that starts with an option is
    /// a list of options (a table's, or a prose mention); any other span is someone else's.
    private mutating func addOptions(inSpan span: String, file: String, line: Int) {
        if span.trimmingCharacters(in: .whitespaces).hasPrefix("--") {
            for name in Self.optionNames(in: span) { options.append(Option(name: name, command: nil, file: file, line: line)) }
        } else {
            addOptions(inCode: span, file: file, line: line)
        }
    }

    /// In code: only the options of a `lookout` invocation, up to the end of its command (a pipe, `;`,
    /// `&`, or a `#` comment).
    private mutating func addOptions(inCode code: String, file: String, line: Int) {
        // `lookout`, `.build/release/lookout` or `/usr/bin/lookout` as a command; not `…/lookout` as an
        // MQTT prefix or another program's argument.
        let invocation = /(?:^|[\s=|;&(])(?:\.build\/(?:debug|release)\/|\/usr\/(?:local\/)?bin\/)?lookout\s+([^|;&#]*)/
        for match in code.matches(of: invocation) {
            let arguments = match.output.1.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            var command: [String] = []
            var known = subcommands[""] ?? []
            for word in arguments {
                guard known.contains(word) else { break }
                command.append(word)
                known = subcommands[command.joined(separator: " ")] ?? []
            }
            for name in Self.optionNames(in: String(match.output.1)) {
                options.append(Option(name: name, command: command, file: file, line: line))
            }
        }
    }

    /// `--name`, and both names of `--[no-]name`; `--mqtt-*` (a family) is not an option.
    static func optionNames(in text: String) -> [String] {
        let pattern = /(?:^|[^\w-])--(\[no-\])?([a-z0-9]+(?:-[a-z0-9]+)*)(-?\*)?/
        return text.matches(of: pattern).flatMap { match -> [String] in
            if match.output.3 != nil { return [] }
            let name = String(match.output.2)
            return match.output.1 == nil ? [name] : [name, "no-" + name]
        }
    }

    /// A span that is a path, not on the file system: a route (`/api/status`, `/snapshots/NAME`,
    /// `/api/stream.mjpeg?boxes=1`).
    private mutating func addRoute(inSpan span: String, file: String, line: Int) {
        guard span.hasPrefix("/"), !span.contains(" ") else { return }
        let path = String(span.prefix { $0 != "?" })
        let first = path.split(separator: "/").first.map(String.init) ?? ""
        guard !Self.fileSystemRoots.contains(first) else { return }
        routes.append(Route(path: path, file: file, line: line))
    }

    /// The paths of URLs on the web view's host and port (`localhost:8080/api/status`,
    /// `http://127.0.0.1:8080/`): the docs serve it on 8080; other ports are other servers (ffmpeg's).
    private mutating func addRoutes(inURLsOf code: String, file: String, line: Int) {
        let url = /(?:localhost|127\.0\.0\.1|\[::1\]):8080(\/[^\s?'"`)]*)?/
        for match in code.matches(of: url) {
            routes.append(Route(path: match.output.1.map(String.init) ?? "/", file: file, line: line))
        }
    }
}
