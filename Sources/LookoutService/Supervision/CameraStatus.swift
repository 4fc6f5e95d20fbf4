import Lookout

/// One camera's state in a few words, for systemd's STATUS= (`systemctl status` shows it):
/// "door: running 30 fps", "hall: lost, retrying", "yard: capture stalled for 42 s".
enum CameraStatus {
    static func text(camera: String, input: InputState, frameRate: Double, stalledFor: Double?) -> String {
        if let stalledFor { return "\(camera): capture stalled for \(Int(stalledFor)) s" }
        switch input {
        case .starting: return "\(camera): starting"
        case .streaming: return frameRate >= 0.5 ? "\(camera): running \(Int(frameRate.rounded())) fps" : "\(camera): running"
        case .lost: return "\(camera): lost, retrying"
        case .ended: return "\(camera): input ended"
        case .stopped: return "\(camera): stopped"
        }
    }

    /// Every camera's state, in order, on one line.
    static func line(_ pipelines: [DetectionPipeline], now: Int64 = MonotonicClock.nanoseconds()) -> String {
        pipelines.map { pipeline in
            let heartbeat = pipeline.session.heartbeat
            let (input, frameRate) = pipeline.inputStatus
            return text(camera: pipeline.configuration.camera, input: input, frameRate: frameRate,
                        stalledFor: heartbeat.isAlive(at: now) ? nil : heartbeat.silence(at: now))
        }.joined(separator: "; ")
    }
}
