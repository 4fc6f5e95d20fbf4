/// Timestamps made strictly increasing: one at or before the last becomes the last plus 1 ns, so
/// that what Lookout reports never runs backwards (a driver's or a writer's clock that does, an
/// arrival time read twice within a nanosecond).
package struct RisingTimestamp: Sendable {
    private var last: Int64 = 0

    package init() {}

    /// `nanoseconds`, or just past the last one given.
    package mutating func next(_ nanoseconds: Int64) -> Int64 {
        last = nanoseconds > last ? nanoseconds : last &+ 1
        return last
    }
}
