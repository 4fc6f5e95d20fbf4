/// A part of a running pipeline that counts what it does besides the pipeline's own frames and
/// events (each event sink, the web server). The pipeline asks each part for its section, in the
/// order the parts were added (sinks, then other reporters), and the snapshot keeps them in that
/// order for the end-of-run summary, `/api/status` and `/metrics`.
public protocol StatisticsReporting: AnyObject {
    /// This part's section of `camera`'s statistics, or nil when it has nothing to report. Called
    /// from any thread; must not block for long.
    func statisticsSection(camera: String?) -> StatisticsSection?
}
