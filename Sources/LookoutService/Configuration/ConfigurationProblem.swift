/// One thing wrong in a configuration, said as a compiler says it:
/// `FILE:LINE:COLUMN: key.path: what is wrong (allowed: ...)`. A file is checked whole, and every
/// problem is reported at once.
public struct ConfigurationProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var position: FilePosition?
    /// Where in the configuration: `cameras.door.types`, `detection.face-rate`; "" for the whole.
    public var keyPath: String
    public var message: String

    public init(file: String, position: FilePosition?, keyPath: String, message: String) {
        self.file = file
        self.position = position
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        let place = position.map { "\(file):\($0.line):\($0.column)" } ?? file
        return keyPath.isEmpty ? "\(place): \(message)" : "\(place): \(keyPath): \(message)"
    }

    /// The problem of options given without a file, named by its option: "--presence-window: must
    /// be above 0 when presence-on is above 1", "--input: camera a reads /dev/video0 already".
    package var optionWords: String {
        let name = keyPath.split(separator: ".").last.map(String.init) ?? ""
        guard !name.isEmpty else { return message }
        return "--\(ConfigurationKey.named(name)?.option ?? name): \(message)"
    }
}

/// Every problem of a configuration that cannot be used.
public struct ConfigurationProblems: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]
    public init(_ problems: [ConfigurationProblem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The names closest to a misspelt one, for "did you mean": at most two edits away (or one for
/// short names), nearest first.
enum Suggestion {
    static func closest(to name: String, among candidates: [String]) -> String? {
        let limit = name.count <= 4 ? 1 : 2
        return candidates.map { ($0, distance(name.lowercased(), $0)) }
            .filter { $0.1 <= limit }
            .min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
