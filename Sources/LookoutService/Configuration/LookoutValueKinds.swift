import Lookout
import LookoutHTTP

/// The kinds of value Lookout's own keys take beyond numbers and words.
extension ValueKind where Value == FrameSize {
    static let frameSize = ValueKind(allowed: "WIDTHxHEIGHT, each side 1 to \(FrameSize.maximumSide), e.g. 1280x720",
                                     schema: .schema(["type": .string("string"), "pattern": .string("^[0-9]+[xX][0-9]+$")]),
                                     read: { $0.scalarText.flatMap(FrameSize.init(parsing:)) }, write: { .string($0.description) })
}

extension ValueKind where Value == String {
    /// The pixel formats Lookout reads, as fourccs.
    static let fourcc: ValueKind = {
        let names = ["MJPG", "JPEG", "YUYV", "UYVY", "GREY", "NV12", "NV21", "YU12"]
        return ValueKind(allowed: "one of " + names.joined(separator: ", "),
                         schema: .schema(["type": .string("string"), "enum": .list((names + names.map { $0.lowercased() }).map { .string($0) })]),
                         read: { value in value.scalarText.map { $0.uppercased() }.flatMap { names.contains($0) ? $0 : nil } },
                         write: { .string($0) }).called("fourcc")
    }()

    /// The MQTT brokers of one fabric: one address, several comma-separated in one text, or a list
    /// (each `mqtt[s]://[user[:password]@]host[:port][/prefix]`); kept as the comma-separated text.
    static let mqttURLs: ValueKind = {
        let allowed = "mqtt[s]://[user[:password]@]host[:port]/prefix, or a list of such addresses of one fabric"
        let address: ConfigurationValue = .schema(["type": .string("string"), "minLength": .integer(1), "maxLength": .integer(4096),
                                                   "pattern": .string("^mqtts?://")])
        // A list's items are parsed one by one, so each must begin with its scheme: joined with
        // commas, one without would be read as part of the previous address's password.
        @Sendable func brokers(_ value: ConfigurationValue) -> Result<MQTTBrokerList, MQTTError>? {
            switch value {
            case .string(let single): return Result { () throws(MQTTError) in try MQTTBrokerList(single) }
            case .list(let items):
                let texts = items.compactMap { item -> String? in if case .string(let one) = item { one } else { nil } }
                guard texts.count == items.count, !texts.isEmpty else { return nil }
                return Result { () throws(MQTTError) in try MQTTBrokerList(texts) }
            default: return nil
            }
        }
        @Sendable func text(_ value: ConfigurationValue) -> String? {
            switch value {
            case .string(let single): return single
            case .list(let items): return items.compactMap { if case .string(let one) = $0 { one } else { nil } }.joined(separator: ",")
            default: return nil
            }
        }
        return ValueKind(allowed: allowed,
                         schema: .schema(["anyOf": .list([address, .schema(["type": .string("array"), "items": address, "minItems": .integer(1),
                                                                             "maxItems": .integer(MQTTBrokerList.maximumCount)])])]),
                         read: { value in
                             guard let text = text(value), text.utf8.count <= 4096 * MQTTBrokerList.maximumCount, !text.contains("\0"),
                                   case .success(let list)? = brokers(value),
                                   MQTTConfiguration.textProblem(list.topicPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes) == nil
                             else { return nil }
                             return text
                         },
                         write: { text in
                             let addresses = MQTTBrokerList.split(text)
                             return addresses.count == 1 ? .string(text) : .list(addresses.map { .string($0) })
                         },
                         explain: { value in
                             switch brokers(value) {
                             case .failure(let error)?: return error.description
                             case .success(let list)?:
                                 return MQTTConfiguration.textProblem(list.topicPrefix, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes)
                                     .map { "the topic prefix of '\(String(list.redacted.prefix(80)))...' \($0)" }
                             case nil: return nil
                             }
                         })
    }()

    /// MQTT text (a user name, a client ID) a broker takes.
    static func mqttText(maximumBytes: Int) -> ValueKind {
        text("1 to \(maximumBytes) bytes of UTF-8 text without control characters", maximumBytes: maximumBytes) {
            MQTTConfiguration.textProblem($0, maximumBytes: maximumBytes) == nil
        }
    }

    /// An MQTT topic (prefix) without wildcards.
    static let mqttTopic = text("a topic of 1 to \(MQTTConfiguration.maximumTopicPrefixBytes) bytes without + or #",
                                maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes, pattern: "^[^+#]+$") {
        !$0.contains(where: { $0 == "+" || $0 == "#" }) && MQTTConfiguration.textProblem($0, maximumBytes: MQTTConfiguration.maximumTopicPrefixBytes) == nil
    }

    /// A camera name: letters, digits, _ and -.
    static let cameraName = text("1 to \(CameraName.maximumLength) letters, digits, _ and -", maximumBytes: CameraName.maximumLength,
                                 pattern: "^[A-Za-z0-9_-]{1,\(CameraName.maximumLength)}$", check: CameraName.isValid)

    /// The web server's address.
    static let httpAddress = text("[ADDR:]PORT with PORT 0 to 65535 (8080, 0.0.0.0:8080, [::1]:8080)", maximumBytes: 300) {
        WebServerAddress(parsing: $0) != nil
    }

    /// A host name or address without port or scheme.
    static let hostName = text("a host name or address without port or scheme (lookout.local, 192.168.1.20)", maximumBytes: 253) { host in
        !host.contains("/") && (HostPolicy.split(host).map { $0.port == nil && !$0.host.isEmpty } ?? false)
    }

    /// A site whose pages may use the API: `scheme://host[:port]` (`AllowedOrigin`).
    static let origin = text(AllowedOrigin.form, maximumBytes: 300) { (try? AllowedOrigin(parsing: $0)) != nil }

    /// The forced charset of code payloads, or auto; the usual other names of each encoding are
    /// read as its own (the file and the option alike).
    static let charset = choice(["auto"] + TextEncoding.allCases.map(\.rawValue),
                                aliases: ["utf8": "utf-8", "latin1": "iso-8859-1", "latin-1": "iso-8859-1",
                                          "sjis": "shift_jis", "shift-jis": "shift_jis", "cp932": "shift_jis"])

    /// An ffmpeg -hwaccel name.
    static let hardwareAcceleration = text("an ffmpeg -hwaccel name (auto, vaapi, cuda, ...)", maximumBytes: 64,
                                           pattern: "^[A-Za-z0-9_]+$") { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }.called("api")
}

extension ValueKind where Value == [String] {
    /// A program and its arguments, as a list (no shell); the first must not start with '-'.
    static let command = ValueKind(allowed: "a program and its arguments as a list, e.g. [/usr/local/bin/open-door, --fast]",
                                   schema: .schema(["type": .string("array"), "items": .schema(["type": .string("string")]), "minItems": .integer(1)]),
                                   read: { value in
                                       let items: [ConfigurationValue]
                                       if case .list(let list) = value { items = list } else if case .string = value { items = [value] } else { return nil }
                                       let words = items.compactMap { $0.scalarText }.filter { !$0.isEmpty && !$0.contains("\0") }
                                       guard words.count == items.count, let first = words.first, !first.hasPrefix("-") else { return nil }
                                       return words
                                   }, write: { .list($0.map { .string($0) }) })
}

extension ValueKind where Value == [MetadataObjectType] {
    /// Kinds to look for.
    static let kinds: ValueKind = {
        let known = MetadataObjectType.allCodeTypes + [.face]
        return ValueKind(allowed: "a list of " + known.map(\.rawValue).joined(separator: ", "),
                         schema: .schema(["type": .list([.string("array"), .string("string")]),
                                          "items": .schema(["enum": .list(known.map { .string($0.rawValue) })]), "minItems": .integer(1)]),
                         read: { value in
                             guard let items = value.items, !items.isEmpty else { return nil }
                             let types = items.compactMap { item in item.scalarText.flatMap { name in known.first { $0.rawValue == name.lowercased() } } }
                             return types.count == items.count ? types : nil
                         }, write: { .list($0.map { .string($0.rawValue) }) })
    }()
}

extension ValueKind where Value == [SnapshotTrigger] {
    /// Events that take a snapshot.
    static let snapshotTriggers: ValueKind = {
        let names = SnapshotTrigger.allCases.map(\.rawValue)
        return ValueKind(allowed: "a list of " + names.joined(separator: ", "),
                         schema: .schema(["type": .list([.string("array"), .string("string")]),
                                          "items": .schema(["enum": .list(names.map { .string($0) })]), "minItems": .integer(1)]),
                         read: { value in
                             guard let items = value.items, !items.isEmpty else { return nil }
                             let triggers = items.compactMap { $0.scalarText.flatMap { SnapshotTrigger(rawValue: $0.lowercased()) } }
                             return triggers.count == items.count ? triggers : nil
                         }, write: { .list($0.map { .string($0.rawValue) }) }).called("events")
    }()
}

extension ValueKind where Value == Rect {
    /// x, y, width, height as fractions of the frame, top-left origin.
    static let rect = ValueKind(allowed: "[x, y, width, height] as fractions within 0...1, e.g. [0.25, 0.25, 0.5, 0.5]",
                                schema: .schema(["type": .list([.string("array"), .string("string")]),
                                                 "items": .schema(["type": .string("number"), "minimum": .integer(0), "maximum": .integer(1)]),
                                                 "minItems": .integer(4), "maxItems": .integer(4)]),
                                read: { value in
                                    guard let items = value.items, items.count == 4 else { return nil }
                                    let numbers = items.compactMap { $0.scalarText.flatMap { Double($0) } }
                                    guard numbers.count == 4 else { return nil }
                                    return Rect(fractionsOfFrame: numbers[0], numbers[1], numbers[2], numbers[3])
                                }, write: { .list([.number($0.x), .number($0.y), .number($0.width), .number($0.height)]) })
}

extension ValueKind where Value == [CameraControlSetting] {
    /// Camera controls by name, in the file's order: `{focus_automatic_continuous: 0, focus_absolute: 30}`.
    static let controls = ValueKind(allowed: "a map of control names to whole numbers, e.g. {brightness: 128}",
                                    schema: .schema(["type": .string("object"),
                                                     "additionalProperties": .schema(["type": .string("integer"),
                                                                                      "minimum": .integer(Int(Int32.min)), "maximum": .integer(Int(Int32.max))])]),
                                    read: { value in
                                        guard case .map(let entries) = value, !entries.isEmpty else { return nil }
                                        var controls: [CameraControlSetting] = []
                                        for entry in entries {
                                            guard !entry.key.isEmpty, let number = entry.value.scalarText.flatMap({ Int32($0) }) else { return nil }
                                            controls.append(CameraControlSetting(name: entry.key.lowercased(), value: number))
                                        }
                                        return controls
                                    }, write: { controls in
                                        .map(controls.map { .init(key: $0.name, value: .integer(Int($0.value))) })
                                    }, explain: { value in
                                        guard case .map(let entries) = value else { return nil }
                                        let bad = entries.first { entry in !entry.key.isEmpty && entry.value.scalarText.flatMap { Int32($0) } == nil }
                                        return bad.map { "control \($0.key): \(ConfigurationReader.describe($0.value)) is not a whole number from \(Int32.min) to \(Int32.max)" }
                                    })
}

extension ValueKind where Value == RegionPolygon {
    /// A polygon in fractions of the frame: `[[x, y], [x, y], [x, y], ...]` or `"x,y x,y x,y"`.
    static let polygon = ValueKind(allowed: "at least 3 points [x, y] within 0...1, e.g. [[0.1, 0.1], [0.5, 0.1], [0.5, 0.5]]",
                                   schema: polygonSchema,
                                   read: { try? polygon(from: $0).get() },
                                   write: { polygon in .list(polygon.points.map { .list([.number($0.x), .number($0.y)]) }) },
                                   explain: { value in
                                       guard case .failure(let problem) = polygon(from: value) else { return nil }
                                       return "a polygon \(problem) (allowed: at least 3 points [x, y] within 0...1)"
                                   })

    /// The polygon `value` describes, or what is wrong with it in words.
    private static func polygon(from value: ConfigurationValue) -> Result<RegionPolygon, PolygonProblem> {
        do throws(RegionError) {
            switch value {
            case .string(let text): return .success(try RegionPolygon(parsing: text))
            case .list(let items):
                var points: [Point] = []
                for (index, item) in items.enumerated() {
                    guard case .list(let pair) = item, pair.count == 2,
                          let x = pair[0].scalarText.flatMap(Double.init), let y = pair[1].scalarText.flatMap(Double.init) else {
                        return .failure(PolygonProblem(words: "has a point \(index + 1) that is not [x, y]"))
                    }
                    points.append(Point(x: x, y: y))
                }
                return .success(try RegionPolygon(points))
            default: return .failure(PolygonProblem(words: "is \(value.kindWords), not a list of points"))
            }
        } catch {
            return .failure(PolygonProblem(words: "is refused: \(error)"))
        }
    }

    static let polygonSchema: ConfigurationValue = .schema([
        "type": .list([.string("array"), .string("string")]), "minItems": .integer(3),
        "items": .schema(["type": .string("array"), "minItems": .integer(2), "maxItems": .integer(2),
                          "items": .schema(["type": .string("number"), "minimum": .integer(0), "maximum": .integer(1)])])])
}

/// What is wrong with a polygon, in words that follow "a polygon".
struct PolygonProblem: Error, CustomStringConvertible {
    var words: String
    var description: String { words }
}

extension ValueKind where Value == [RegionPolygon] {
    /// Masks: a list of polygons.
    static let masks = ValueKind(allowed: "a list of polygons, each at least 3 points [x, y] within 0...1",
                                 schema: .schema(["type": .string("array"), "items": ValueKind<RegionPolygon>.polygonSchema]),
                                 read: { value in
                                     guard case .list(let items) = value else { return nil }
                                     // A single polygon written without the outer list is not a list of polygons.
                                     let polygons = items.compactMap { try? ValueKind<RegionPolygon>.polygon.parse($0).get() }
                                     return polygons.count == items.count ? polygons : nil
                                 }, write: { .list($0.map { ValueKind<RegionPolygon>.polygon.represent($0) }) },
                                 explain: { value in
                                     guard case .list(let items) = value else { return nil }
                                     for (index, item) in items.enumerated() {
                                         if case .failure(let refusal) = ValueKind<RegionPolygon>.polygon.parse(item), let reason = refusal.reason {
                                             return "mask \(index + 1): " + reason
                                         }
                                     }
                                     return nil
                                 })
}

extension ValueKind where Value == [Zone] {
    /// Zones: a map of names to polygons, in order (the first that holds a detection names it),
    /// or a list of `{name: NAME, points: POLYGON}`.
    static let zones = ValueKind(allowed: "a map of zone names (letters, digits, _ and -) to polygons, e.g. {desk: [[0.4, 0.4], [0.9, 0.4], [0.9, 1]]}",
                                 schema: .schema(["type": .list([.string("object"), .string("array")]),
                                                  "propertyNames": .schema(["pattern": .string("^[A-Za-z0-9_-]{1,64}$")]),
                                                  "additionalProperties": ValueKind<RegionPolygon>.polygonSchema,
                                                  "items": .schema(["type": .string("object"), "required": .list([.string("name"), .string("points")]),
                                                                    "properties": .schema(["name": .schema(["type": .string("string"),
                                                                                                            "pattern": .string("^[A-Za-z0-9_-]{1,64}$")]),
                                                                                           "points": ValueKind<RegionPolygon>.polygonSchema]),
                                                                    "additionalProperties": .bool(false)])]),
                                 read: { value in
                                     guard let entries = namedPolygons(value), !entries.isEmpty else { return nil }
                                     var zones: [Zone] = []
                                     for entry in entries {
                                         guard let polygon = try? ValueKind<RegionPolygon>.polygon.parse(entry.value).get(),
                                               let zone = try? Zone(name: entry.key, polygon: polygon) else { return nil }
                                         zones.append(zone)
                                     }
                                     return (try? DetectionRegions(zones: zones)) != nil ? zones : nil
                                 }, write: { zones in .map(zones.map { .init(key: $0.name, value: ValueKind<RegionPolygon>.polygon.represent($0.polygon)) }) },
                                 explain: { value in
                                     guard let entries = namedPolygons(value) else { return nil }
                                     if Set(entries.map(\.key)).count < entries.count { return "a zone name is given twice" }
                                     for entry in entries {
                                         if case .failure(let refusal) = ValueKind<RegionPolygon>.polygon.parse(entry.value), let reason = refusal.reason {
                                             return "zone \(entry.key): " + reason
                                         }
                                         if !CameraName.isValid(entry.key) {
                                             return "the zone name '\(entry.key.escapedForDisplay)' is not allowed (allowed: 1 to \(CameraName.maximumLength) letters, digits, _ and -)"
                                         }
                                     }
                                     return nil
                                 })
}

/// The zones as (name, polygon value) pairs, from a map or a list of `{name:, points:}`; nil
/// for anything else.
private func namedPolygons(_ value: ConfigurationValue) -> [ConfigurationValue.Entry]? {
    switch value {
    case .map(let entries): return entries
    case .list(let items):
        var entries: [ConfigurationValue.Entry] = []
        for item in items {
            guard case .map(let fields) = item, fields.count == 2, case .string(let name)? = item["name"], let points = item["points"] else { return nil }
            entries.append(.init(key: name, value: points))
        }
        return entries
    default: return nil
    }
}
