import CYaml // libyaml, the parser the Yams package builds (its product depends on it)
import Lookout

/// The YAML of a configuration file read into `ConfigurationValue`s straight from libyaml's events,
/// within bounds that hold for any file, however hostile:
///
/// - at most `maximumValues` values (scalars, lists, maps and keys), an alias counting as every value
///   it stands for: nested aliases (a "billion laughs") are refused while the file is read, before any
///   value is walked. Time and memory go with the file's size, never with what its aliases expand to;
/// - at most `maximumDepth` levels of lists and maps, through aliases too (libyaml itself stops at 1000);
/// - a leading UTF-8 byte-order mark is skipped;
/// - a key given twice in one map is one problem among the others (the first is kept), with its
///   line and column; reading goes on.
///
/// Yams's own composer does none of these: it stops at the first duplicated key, and an alias there
/// is the anchored value itself, which a walk then expands without bound.
enum YAMLComposer {
    /// A configuration holds a few hundred values; 500 cameras with every key hold about 40,000.
    static let maximumValues = 100_000
    /// A configuration is 6 levels deep (cameras, a camera, zones, a zone, a point, a coordinate).
    static let maximumDepth = 64

    struct Composed {
        /// The document (`.null` for an empty one); nil when the file cannot be read as values: not
        /// YAML, or past a bound.
        var root: ConfigurationValue?
        /// Every problem found while reading: duplicated keys, unset variables, what stopped it.
        var problems: [ConfigurationProblem]
        /// The secret `${VAR}` values expanded, for the messages that quote values.
        var secrets: SecretRedaction
    }

    static func compose(_ text: String, file: String, environment: [String: String]) -> Composed {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let length = bytes.count
        bytes.append(0) // libyaml wants a non-null buffer, even for an empty file
        var state = State(file: file, environment: environment)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            return Composed(root: nil, problems: [state.problem(nil, "", "cannot be read: out of memory")], secrets: state.secrets)
        }
        defer { yaml_parser_delete(&parser) }
        let root: ConfigurationValue? = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, buffer.baseAddress, length)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    state.problems.append(syntaxProblem(parser, file: file))
                    return nil
                }
                defer { yaml_event_delete(&event) }
                switch state.take(event) {
                case .more: continue
                case .done: return state.root ?? .null
                case .stopped: return nil
                }
            }
        }
        return Composed(root: root, problems: state.problems, secrets: state.secrets)
    }

    /// libyaml's words for a file that is not YAML, where it found that.
    private static func syntaxProblem(_ parser: yaml_parser_t, file: String) -> ConfigurationProblem {
        let words = parser.problem.map { String(cString: $0) } ?? "cannot be read"
        switch parser.error {
        case YAML_MEMORY_ERROR:
            return ConfigurationProblem(file: file, position: nil, keyPath: "", message: "cannot be read: out of memory")
        case YAML_PARSER_ERROR where words.hasPrefix("Maximum nesting level"):
            // libyaml's own bound (1000 levels), reached before a flow collection's events.
            return ConfigurationProblem(file: file, position: position(parser.problem_mark), keyPath: "", message: tooDeepWords)
        case YAML_READER_ERROR:
            return ConfigurationProblem(file: file, position: nil, keyPath: "", message: "not valid YAML: \(words) at byte \(parser.problem_offset)")
        default:
            return ConfigurationProblem(file: file, position: position(parser.problem_mark), keyPath: "", message: "not valid YAML: \(words)")
        }
    }

    static let tooDeepWords = "nested more than \(maximumDepth) levels deep (lists and maps, aliases included); a configuration is a few levels deep"

    static func position(_ mark: yaml_mark_t) -> FilePosition { FilePosition(line: mark.line + 1, column: mark.column + 1) }

    /// A value read whole, with what it counts towards the bounds.
    private struct Built {
        var value: ConfigurationValue
        var position: FilePosition
        /// Values in it, itself included.
        var count: Int
        /// Levels of lists and maps below it (0 for a scalar).
        var height: Int
    }

    /// A list or map being read.
    private struct Frame {
        var isMap: Bool
        var anchor: String?
        var position: FilePosition
        var items: [ConfigurationValue] = []
        var entries: [ConfigurationValue.Entry] = []
        /// A map's key waiting for its value; `kept` is false for a key not taken (given twice, not a scalar).
        var key: (text: String, position: FilePosition, kept: Bool)?
        var seen: [String: FilePosition] = [:]
        var count = 1
        var height = 0

        init(isMap: Bool, anchor: String?, position: FilePosition) {
            self.isMap = isMap
            self.anchor = anchor
            self.position = position
        }
    }

    private enum Step { case more, done, stopped }

    private struct State {
        let file: String
        let environment: [String: String]
        var problems: [ConfigurationProblem] = []
        var secrets = SecretRedaction()
        var root: ConfigurationValue?
        private var stack: [Frame] = []
        private var anchors: [String: Built] = [:]
        private var total = 0
        private var documents = 0

        init(file: String, environment: [String: String]) {
            self.file = file
            self.environment = environment
        }

        func problem(_ position: FilePosition?, _ keyPath: String, _ message: String) -> ConfigurationProblem {
            ConfigurationProblem(file: file, position: position, keyPath: keyPath, message: message)
        }

        /// The key path of what is being read: the keys of the maps it is in.
        private var keyPath: [String] { stack.compactMap { $0.isMap ? $0.key?.text : nil } }

        mutating func take(_ event: yaml_event_t) -> Step {
            let at = position(event.start_mark)
            switch event.type {
            case YAML_STREAM_START_EVENT, YAML_DOCUMENT_END_EVENT:
                return .more
            case YAML_STREAM_END_EVENT:
                return .done
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    problems.append(problem(at, "", "not valid YAML: a second document (---) begins here; a configuration file is one"))
                    return .stopped
                }
                return .more
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                guard count(1, at: at) else { return .stopped }
                if let top = stack.last, top.isMap, top.key == nil {
                    takeKey(text, at: at) // keys are taken as written: no ${VAR} in a key
                    if let anchor = name(scalar.anchor) { anchors[anchor] = Built(value: .string(text), position: at, count: 1, height: 0) }
                    return .more
                }
                let value: ConfigurationValue
                if scalar.style == YAML_PLAIN_SCALAR_STYLE, ["", "~", "null", "Null", "NULL"].contains(text) {
                    value = .null
                } else {
                    let secretKey = stack.last(where: \.isMap)?.key.map { ConfigurationKey.holdsSecret($0.text) } ?? false
                    value = .string(ConfigurationFile.expand(text, at: at, file: file, environment: environment, inSecretKey: secretKey,
                                                             secrets: &secrets, problems: &problems))
                }
                return add(Built(value: value, position: at, count: 1, height: 0), anchor: name(scalar.anchor))
            case YAML_ALIAS_EVENT:
                let name = name(event.data.alias.anchor) ?? ""
                guard let built = anchors[name] else {
                    problems.append(problem(at, keyPath.joined(separator: "."), "not valid YAML: the alias *\(name) names no anchor (&\(name)) above it"))
                    return .stopped
                }
                guard count(built.count, at: at) else { return .stopped }
                guard stack.count + built.height <= maximumDepth else { return tooDeep(at) }
                if let top = stack.last, top.isMap, top.key == nil {
                    guard case .string(let text) = built.value else {
                        notAKey(at, built.value)
                        return add(Built(value: built.value, position: at, count: built.count, height: built.height), anchor: nil)
                    }
                    takeKey(text, at: at)
                    return .more
                }
                return add(Built(value: built.value, position: at, count: built.count, height: built.height), anchor: nil)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMap = event.type == YAML_MAPPING_START_EVENT
                guard count(1, at: at) else { return .stopped }
                guard stack.count < maximumDepth else { return tooDeep(at) }
                if let top = stack.last, top.isMap, top.key == nil { notAKey(at, isMap ? .map([]) : .list([])) }
                stack.append(Frame(isMap: isMap, anchor: name(isMap ? event.data.mapping_start.anchor : event.data.sequence_start.anchor),
                                   position: at))
                return .more
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { return .more }
                let value: ConfigurationValue = frame.isMap ? .map(frame.entries) : .list(frame.items)
                return add(Built(value: value, position: frame.position, count: frame.count, height: frame.height), anchor: frame.anchor)
            default:
                return .more
            }
        }

        private func name(_ anchor: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            anchor.map { String(cString: $0) }
        }

        /// Counts `values` more; false, with the problem said, past the bound.
        private mutating func count(_ values: Int, at: FilePosition) -> Bool {
            total += values
            guard total > maximumValues else { return true }
            problems.append(problem(at, "", "holds more than \(maximumValues) values, an alias (*name) counting as every value it stands for; a configuration holds a few hundred (nested aliases are refused before they are expanded)"))
            return false
        }

        private mutating func tooDeep(_ at: FilePosition) -> Step {
            problems.append(problem(at, "", tooDeepWords))
            return .stopped
        }

        /// A list or map where a map's key is: refused (a key is a name); it and its value are left out.
        private mutating func notAKey(_ at: FilePosition, _ value: ConfigurationValue) {
            problems.append(problem(at, keyPath.joined(separator: "."), "a key is a name, not \(value.kindWords)"))
        }

        /// A map's key: kept unless the map has it already (then it and its value are a problem, and left out).
        private mutating func takeKey(_ text: String, at: FilePosition) {
            let path = keyPath
            var top = stack.removeLast()
            var kept = true
            if let first = top.seen[text] {
                kept = false
                let what = path == [ConfigurationReader.camerasKey] ? "a second camera named '\(text.escapedForDisplay)'" : "'\(text.escapedForDisplay)' is given twice"
                problems.append(problem(at, (path + [text]).joined(separator: "."), "\(what) (first at line \(first.line))"))
            } else {
                top.seen[text] = at
            }
            top.key = (text, at, kept)
            top.count += 1
            stack.append(top)
        }

        /// A value read whole: into the list or map it is in, or the document's.
        private mutating func add(_ built: Built, anchor: String?) -> Step {
            if let anchor { anchors[anchor] = built }
            guard var top = stack.popLast() else {
                root = built.value
                return .more
            }
            top.count += built.count
            top.height = max(top.height, built.height + 1)
            if top.isMap {
                if let key = top.key {
                    if key.kept {
                        top.entries.append(ConfigurationValue.Entry(key: key.text, value: built.value, position: key.position, valuePosition: built.position))
                    }
                    top.key = nil
                } else {
                    // A key that is not a name (a list, a map, an alias of one): said already.
                    top.key = ("", built.position, false)
                }
            } else {
                top.items.append(built.value)
            }
            stack.append(top)
            return .more
        }
    }
}
