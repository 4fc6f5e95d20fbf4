import Foundation
import Lookout

/// The configuration file: YAML, read from libyaml's events (`YAMLComposer`: line and column of
/// every key and value, bounded), `${VAR}` replaced from the environment (systemd credentials as
/// `${CREDENTIALS_DIRECTORY}/NAME`), and checked whole before anything is built from it
/// (`ConfigurationCheck`).
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

    /// Reads and checks YAML `text` (named `file` in problems). A file is read within bounds
    /// (`YAMLComposer`: values, aliases, depth); every message that quotes a value hides the secret
    /// `${VAR}`s expanded in it (`SecretRedaction`) and a secret key's password.
    public static func parse(_ text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                             checksFiles: Bool = true) throws(ConfigurationProblems) -> LookoutConfiguration {
        let composed = YAMLComposer.compose(text, file: file, environment: environment)
        var problems = composed.problems
        if let root = composed.root {
            var positions: [String: FilePosition] = [:]
            let (configuration, found) = ConfigurationReader.read(root, file: file, positions: &positions, secrets: composed.secrets)
            // The checks across keys run on what could be read, so one pass reports everything.
            problems += found + ConfigurationCheck.problems(in: configuration, file: file, positions: positions, checksFiles: checksFiles)
                .map { $0.hiding(composed.secrets) }
            if problems.isEmpty { return configuration }
        }
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

    // MARK: Variables

    /// `text` with `${NAME}` replaced by the environment's NAME (`$$` for a `$`); an unset name is
    /// a problem, so a secret never silently becomes empty. The value of a NAME that looks secret,
    /// or of any NAME in a secret key's value (`inSecretKey`), goes into `secrets`: messages show it
    /// as `${NAME}`.
    static func expand(_ text: String, at position: FilePosition?, file: String, environment: [String: String], inSecretKey: Bool = false,
                       secrets: inout SecretRedaction, problems: inout [ConfigurationProblem]) -> String {
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
                    if inSecretKey || SecretRedaction.looksSecret(name) { secrets.add(value, shownAs: "${\(name)}") }
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
}
