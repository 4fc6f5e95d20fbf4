/// A part of a running pipeline that counts what it does (the session, the metadata output, each
/// event sink). The pipeline asks every part in turn to fill in one `StatisticsSnapshot`, which the
/// end-of-run summary, `/api/status` and `/metrics` all read.
public protocol StatisticsReporting: AnyObject {
    /// Adds this part's counters to `snapshot`. Called from any thread; must not block for long.
    func report(into snapshot: inout StatisticsSnapshot)
}
