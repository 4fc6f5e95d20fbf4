import Foundation
import Lookout
import Yams

/// The configuration file: YAML, read with Yams (whose nodes carry line and column), `${VAR}`
/// replaced from the environment (systemd credentials as `${CREDENTIALS_DIRECTORY}/NAME`), and
/// checked whole before anything is built from it (`ConfigurationCheck`).
///
/// Every problem is reported at once, each as `FILE:LINE:COLUMN: key.path: what is wrong
/// (allowed: ...)`.
public enum ConfigurationFile {
    /// The largest file read: a configuration is a few kilobytes; a mistake (a video given as the
    /// configuration) is refused before it is read into memory.
    public static let maximumBytes = 1 << 20

    /// Reads and checks the file at `path`. Throws `ConfigurationProblems` with every problem.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationProblems) -> LookoutConfiguration {
        let text: String
        do { text = try read(path) } catch { throw ConfigurationProblems([ConfigurationProblem(file: path, position: nil, keyPath: "", message: error.description)]) }
        return try parse(text, file: path, environment: environment)
    }

    /// Reads and checks YAML `text` (named `file` in problems).
    public static func parse(_ text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                             checksFiles: Bool = true) throws(ConfigurationProblems) -> LookoutConfiguration {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigurationProblems([problem(error, file: file, text: text)])
        } catch {
            throw ConfigurationProblems([ConfigurationProblem(file: file, position: nil, keyPath: "", message: "\(error)")])
        }
        var problems: [ConfigurationProblem] = []
        let root = node.map { value(of: $0, file: file, environment: environment, problems: &problems) } ?? .null
        var positions: [String: FilePosition] = [:]
        let (configuration, found) = ConfigurationReader.read(root, file: file, positions: &positions)
        // The checks across keys run on what could be read, so one pass reports everything.
        problems += found + ConfigurationCheck.problems(in: configuration, file: file, positions: positions, checksFiles: checksFiles)
        if problems.isEmpty { return configuration }
        throw ConfigurationProblems(problems.sorted { ($0.position?.line ?? 0, $0.position?.column ?? 0) < ($1.position?.line ?? 0, $1.position?.column ?? 0) })
    }

    /// Why a file could not be read.
    public enum ReadError: Error, CustomStringConvertible {
        case unreadable(Errno)
        case notARegularFile
        case tooLarge(Int)
        case notUTF8

        public var description: String {
            switch self {
            case .unreadable(let errno): return "cannot read the configuration file: \(errno)"
            case .notARegularFile: return "not a regular file (a configuration file is YAML text)"
            case .tooLarge(let limit): return "larger than \(limit / 1024) KB; a configuration file is YAML text of a few kilobytes"
            case .notUTF8: return "not UTF-8 text; a configuration file is YAML text"
            }
        }
    }

    static func read(_ path: String) throws(ReadError) -> String {
        let fd = path.withPlatformPath { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else { throw .unreadable(.current) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(.current) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile }
        guard Int(info.st_size) <= maximumBytes else { throw .tooLarge(maximumBytes) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(.current)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > maximumBytes { throw .tooLarge(maximumBytes) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    // MARK: YAML to values

    private static func position(_ mark: Mark?) -> FilePosition? { mark.map { FilePosition(line: $0.line, column: $0.column) } }

    private static func value(of node: Node, file: String, environment: [String: String], problems: inout [ConfigurationProblem]) -> ConfigurationValue {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain, ["", "~", "null", "Null", "NULL"].contains(scalar.string) { return .null }
            return .string(expand(scalar.string, at: position(scalar.mark), file: file, environment: environment, problems: &problems))
        case .sequence(let sequence):
            return .list(sequence.map { value(of: $0, file: file, environment: environment, problems: &problems) })
        case .mapping(let mapping):
            return .map(mapping.map { pair in
                ConfigurationValue.Entry(key: pair.key.string ?? "\(pair.key)", value: value(of: pair.value, file: file, environment: environment, problems: &problems),
                                         position: position(pair.key.mark), valuePosition: position(pair.value.mark))
            })
        case .alias:
            return .null
        }
    }

    /// `text` with `${NAME}` replaced by the environment's NAME (`$$` for a `$`); an unset name is
    /// a problem, so a secret never silently becomes empty.
    static func expand(_ text: String, at position: FilePosition?, file: String, environment: [String: String],
                       problems: inout [ConfigurationProblem]) -> String {
        guard text.contains("$") else { return text }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.first == "$" {
                result += "$"
                rest = after.dropFirst()
            } else if after.first == "{", let close = after.firstIndex(of: "}") {
                let name = String(after[after.index(after: after.startIndex)..<close])
                if let value = environment[name] {
                    result += value
                } else {
                    // Kept as written, so the key's own check does not refuse it a second time.
                    result += "${\(name)}"
                    problems.append(ConfigurationProblem(file: file, position: position, keyPath: "",
                                                         message: "the environment variable \(name) in '${\(name)}' is not set (write $$ for a $)"))
                }
                rest = after[after.index(after: close)...]
            } else {
                result += "$"
                rest = after
            }
        }
        return result + rest
    }

    // MARK: YAML errors

    private static func problem(_ error: YamlError, file: String, text: String) -> ConfigurationProblem {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ConfigurationProblem(file: file, position: position(mark), keyPath: "", message: "not valid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            // Yams names the mapping; the second occurrence of the key after it is the one to point at.
            let matches = lines.indices.filter { index in
                index + 1 >= context.mark.line && lines[index].drop(while: { $0 == " " }).hasPrefix(key + ":")
            }
            let line = matches.count > 1 ? matches[1] : (matches.first ?? context.mark.line - 1)
            let column = (lines.indices.contains(line) ? lines[line].prefix(while: { $0 == " " }).count : 0) + 1
            let path = keyPath(atLine: line, in: lines)
            let first = matches.first.map { " (first at line \($0 + 1))" } ?? ""
            let what = path.hasPrefix("cameras.") && path.split(separator: ".").count == 2 ? "a second camera named '\(key)'" : "'\(key)' is given twice"
            return ConfigurationProblem(file: file, position: FilePosition(line: line + 1, column: column), keyPath: path, message: what + first)
        default:
            return ConfigurationProblem(file: file, position: nil, keyPath: "", message: "not valid YAML: \(error)")
        }
    }

    /// The key path of a block-style key line: the keys of the less indented lines above it.
    private static func keyPath(atLine line: Int, in lines: [Substring]) -> String {
        guard lines.indices.contains(line) else { return "" }
        func key(_ text: Substring) -> String { String(text.drop(while: { $0 == " " }).prefix(while: { $0 != ":" })) }
        var indent = lines[line].prefix(while: { $0 == " " }).count
        var path = [key(lines[line])]
        var index = line - 1
        while index >= 0, indent > 0 {
            let text = lines[index]
            let lead = text.prefix(while: { $0 == " " }).count
            if lead < indent, !text.drop(while: { $0 == " " }).hasPrefix("#"), text.contains(":") {
                path.insert(key(text), at: 0)
                indent = lead
            }
            index -= 1
        }
        return path.joined(separator: ".")
    }
}
