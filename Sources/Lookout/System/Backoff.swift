/// How long to wait before the next attempt to reach something lost (a camera, an ffmpeg
/// source, an MQTT broker): `first`, doubling after each `increase()` up to `longest`, and back
/// to `first` after a `reset()` (something that worked).
package struct Backoff: Sendable {
    package let first: Double
    package let longest: Double
    /// The wait before the next attempt, in seconds.
    package private(set) var delay: Double

    package init(first: Double, longest: Double) {
        self.first = first
        self.longest = longest
        delay = first
    }

    /// A camera's or a network source's reopening: 0.25 s doubling to 4 s.
    package static let capture = Backoff(first: 0.25, longest: 4)

    /// The delay in milliseconds, for a cancellable sleep.
    package var milliseconds: Int32 { Int32((delay * 1000).rounded()) }

    package mutating func increase() { delay = min(delay * 2, longest) }
    package mutating func reset() { delay = first }
}

/// Whether an input is lost, so that its loss and its return are each reported once however
/// many attempts lie between (a V4L2 camera, an ffmpeg source).
package struct LossTracker: Sendable {
    package private(set) var isLost = false

    package init() {}

    /// The input was lost (again): true the first time, when it is to be reported.
    package mutating func lose() -> Bool {
        defer { isLost = true }
        return !isLost
    }

    /// A frame came: true when it ends a loss, which is to be reported.
    package mutating func restore() -> Bool {
        defer { isLost = false }
        return isLost
    }
}
