/// One named value of a statistics section, as the `stats` line and `/api/status` write it.
public struct StatisticsField: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case integer(Int)
        case bool(Bool)
        case string(String)
        /// Fields of their own (one hook's counters among the hooks).
        case object([StatisticsField])
    }

    /// The key, in the line's snake_case.
    public var name: String
    public var value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }

    /// Writes `"name": value` into an open object.
    func write(into writer: inout JSONWriter) {
        writer.key(name)
        switch value {
        case .integer(let number): writer.integer(number)
        case .bool(let flag): writer.bool(flag)
        case .string(let text): writer.string(text)
        case .object(let fields): Self.writeObject(fields, into: &writer)
        }
    }

    /// Writes `fields` as one JSON object.
    static func writeObject(_ fields: [StatisticsField], into writer: inout JSONWriter) {
        writer.beginObject()
        for field in fields { field.write(into: &writer) }
        writer.endObject()
    }
}
