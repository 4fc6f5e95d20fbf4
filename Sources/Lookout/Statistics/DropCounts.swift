/// Running totals of dropped frames by reason.
public struct DropCounts: Sendable, Equatable {
    public private(set) var byReason: [DropReason: Int] = [:]

    public init() {}

    public var total: Int { byReason.values.reduce(0, +) }

    public subscript(reason: DropReason) -> Int { byReason[reason, default: 0] }

    public mutating func add(_ reason: DropReason, count: Int = 1) {
        byReason[reason, default: 0] += count
    }
}
