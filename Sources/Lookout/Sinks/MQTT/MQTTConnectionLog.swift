import Dispatch
import Logging

/// What a publisher says about its connection and about Home Assistant's restarts: each change
/// of state once, the same thing again counted and summarised (`RepeatedLines`), never a line per
/// attempt or per message. A value of its publisher's, used on its queue.
///
/// - An attempt that fails: "cannot connect to X: reason; retrying", then the attempts failing
///   alike are counted.
/// - A connection lost after it had stayed up (`MQTTConnection.stableAfter`): "connection to X
///   lost (reason); …", each time.
/// - A connection lost sooner (a broker that accepts and then closes): said once, then counted.
///   The connection after the first such loss is said ("reconnected": it may be a broker that
///   restarted); after the second, "reconnected" waits for a connection that stays up.
/// - Home Assistant's `online` on its status topic: said once, then counted.
struct MQTTConnectionLog {
    enum Repeat: Hashable {
        case cannotConnect(broker: Int, reason: String)
        case closedSoon(broker: Int, reason: String)
        case homeAssistantOnline
    }

    private let logger: Logger
    private let brokers: [MQTTBrokerAddress]
    /// Asks for `summaryTimerFired(end:)` after the seconds given, on the publisher's queue.
    private let schedule: (_ end: Int64, _ seconds: Double) -> Void
    private var repeats = RepeatedLines<Repeat>()
    /// When the summary timer scheduled fires (MonotonicClock nanoseconds), nil when none is.
    private var timerEnd: Int64?
    /// Connections lost within `MQTTConnection.stableAfter` since the last one that stayed up;
    /// from `quietAfter` on, "reconnected" waits for a connection that stays up.
    private var closedSoon = 0
    private static let quietAfter = 2
    /// What "reconnected" would have said while connections were closing soon.
    private var quietReconnect: (broker: Int, failedOver: Bool)?

    init(logger: Logger, brokers: [MQTTBrokerAddress], schedule: @escaping (_ end: Int64, _ seconds: Double) -> Void) {
        self.logger = logger
        self.brokers = brokers
        self.schedule = schedule
    }

    private func name(_ broker: Int) -> String { brokers[broker].redacted }

    /// The broker accepted the connection; `queued` events wait to be delivered.
    mutating func connected(broker: Int, failedOver: Bool, everConnected: Bool, queued: Int) {
        sayEnded(MonotonicClock.nanoseconds()) { if case .cannotConnect = $0 { true } else { false } }
        guard closedSoon < Self.quietAfter else {
            quietReconnect = (broker, failedOver || quietReconnect?.failedOver == true)
            return
        }
        if everConnected {
            logger.notice("MQTT: \(failedOver ? "failed over" : "reconnected") to \(name(broker))\(Self.delivering(queued))")
        } else if brokers.count > 1 {
            logger.info("MQTT: connected to \(name(broker))")
        }
    }

    /// The connection up has stayed up long enough to count as working again.
    mutating func stable(broker: Int, queued: Int) {
        sayEnded(MonotonicClock.nanoseconds()) { if case .closedSoon = $0 { true } else { false } }
        let lost = closedSoon
        closedSoon = 0
        guard let quiet = quietReconnect else { return }
        quietReconnect = nil
        let failedOver = quiet.failedOver
        logger.notice("MQTT: \(failedOver ? "failed over" : "reconnected") to \(name(broker)); it has stayed up \(Int(MQTTConnection.stableAfter)) s, after \(lost) connection\(lost == 1 ? "" : "s") lost sooner\(Self.delivering(queued))")
    }

    mutating func connectFailed(broker: Int, reason: String) {
        guard counted(.cannotConnect(broker: broker, reason: reason)) else { return }
        logger.warning("MQTT: cannot connect to \(name(broker)): \(reason); \(retry(after: broker))")
    }

    /// The connection was lost; `stayedUp`: after it had counted as working.
    mutating func disconnected(broker: Int, reason: String, stayedUp: Bool) {
        if stayedUp {
            let next = brokers.count > 1 ? "failing over to \(name((broker + 1) % brokers.count))" : "events are queued until it is back"
            logger.warning("MQTT: connection to \(name(broker)) lost (\(reason)); \(next)")
            return
        }
        closedSoon += 1
        guard counted(.closedSoon(broker: broker, reason: reason)) else { return }
        logger.warning("MQTT: connection to \(name(broker)) lost \(Self.soon) (\(reason)); \(retry(after: broker)), each wait twice the last (up to \(Int(MQTTConnection.longestRetryDelay)) s)")
    }

    /// Home Assistant said `online` (it restarted); said by the one connection that speaks for them all.
    mutating func homeAssistantOnline() {
        guard counted(.homeAssistantOnline) else { return }
        logger.notice("MQTT: Home Assistant is back online; publishing discovery and state again")
    }

    /// Says what is still counted (the end of the run).
    mutating func finish() {
        sayEnded(MonotonicClock.nanoseconds()) { _ in true }
    }

    // MARK: Counting

    private func retry(after broker: Int) -> String {
        brokers.count > 1 ? "trying \(name((broker + 1) % brokers.count)) next" : "retrying"
    }

    private static var soon: String { "within \(Int(MQTTConnection.stableAfter)) s of being accepted" }

    private static func delivering(_ queued: Int) -> String {
        queued > 0 ? "; delivering \(queued) queued event\(queued == 1 ? "" : "s")" : ""
    }

    /// True when `key`'s line is to be said now; false when it was counted.
    private mutating func counted(_ key: Repeat) -> Bool {
        let said = repeats.occurred(key, now: MonotonicClock.nanoseconds())
        scheduleSummaries()
        return said
    }

    private mutating func sayEnded(_ now: Int64, where matches: (Repeat) -> Bool) {
        for summary in repeats.end(where: matches, now: now) { say(summary) }
    }

    private func say(_ summary: RepeatedLines<Repeat>.Summary) {
        let times = "\(summary.repeats) more time\(summary.repeats == 1 ? "" : "s") in \(RepeatedLines<Repeat>.span(summary.seconds))"
        switch summary.key {
        case .cannotConnect(let broker, let reason):
            logger.warning("MQTT: cannot connect to \(name(broker)): \(reason), \(times)")
        case .closedSoon(let broker, let reason):
            logger.warning("MQTT: connection to \(name(broker)) lost \(Self.soon) (\(reason)), \(times)")
        case .homeAssistantOnline:
            logger.notice("MQTT: Home Assistant said online \(times); answered together, not one by one")
        }
    }

    private mutating func scheduleSummaries() {
        guard let end = repeats.nextWindowEnd, timerEnd.map({ end < $0 }) ?? true else { return }
        timerEnd = end
        schedule(end, max(0, Double(end - MonotonicClock.nanoseconds()) / 1e9))
    }

    /// The summary timer for `end` fired: what is due is said, and the next one scheduled.
    mutating func summaryTimerFired(end: Int64) {
        guard timerEnd == end else { return }
        timerEnd = nil
        for summary in repeats.summariesDue(now: MonotonicClock.nanoseconds()) { say(summary) }
        scheduleSummaries()
    }
}
