/// How standard output (and the HTTP event stream) writes detections and events.
public enum LineFormat: String, Sendable, CaseIterable {
    /// One JSON object per line (`Sinks/Lines/lookout-line.schema.json`).
    case json
    /// zbarcam's `QR-Code:value` lines, the AIM identifier and any GS1 form after tabs (`TextLineEncoder`).
    case text
}
