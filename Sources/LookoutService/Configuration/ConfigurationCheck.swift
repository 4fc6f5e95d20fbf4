import Lookout
import LookoutHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The checks of a configuration that look beyond one key: settings that go together, files that
/// must exist, inputs given twice. Run on every file read (`lookout config check`, every start
/// and reload) and on the command line's configuration.
public enum ConfigurationCheck {
    /// Every problem; `positions` (key path to where it is written) places them in the file.
    public static func problems(in configuration: LookoutConfiguration, file: String, positions: [String: FilePosition] = [:],
                                checksFiles: Bool = true) -> [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func problem(_ path: String, _ message: String) {
            problems.append(ConfigurationProblem(file: file, position: positions[path] ?? positions[String(path.split(separator: ".").first ?? "")],
                                                 keyPath: path, message: message))
        }
        /// Where a camera's effective `key` comes from: its own section, or the global one.
        func path(_ key: String, camera: CameraConfiguration?) -> String {
            if let camera, positions["cameras.\(camera.name).\(key)"] != nil { return "cameras.\(camera.name).\(key)" }
            return "\(ConfigurationKey.named(key)?.section.rawValue ?? "").\(key)"
        }
        let global = configuration.settings
        // Per camera (or the globals alone when there is none).
        let scopes: [CameraConfiguration?] = configuration.cameras.isEmpty ? [nil] : configuration.cameras
        var reported: Set<String> = []
        for camera in scopes {
            let settings = camera.map { configuration.effectiveSettings(of: $0) } ?? global.withDefaults
            if let on = settings.presenceOn, on > 1, settings.presenceWindow?.time == .zero {
                let at = path("presence-window", camera: camera)
                if reported.insert(at).inserted { problem(at, "must be above 0 when presence-on is above 1") }
            }
            for (key, message) in KeyboardSetup.problems(settings) {
                let at = path(key, camera: camera)
                if reported.insert(at).inserted { problem(at, message) }
            }
            if checksFiles {
                for (key, value) in [("face-model", settings.faceModel), ("face-verifier", settings.faceVerifier),
                                     ("face-profile", settings.faceProfile)] {
                    guard let value, value.lowercased() != "none" else { continue }
                    let at = path(key, camera: camera)
                    if let missing = missingFile(value), reported.insert(at).inserted { problem(at, missing) }
                }
            }
        }
        // MQTT.
        if global.mqtt == nil {
            for key in ["mqtt-user", "mqtt-password-file", "mqtt-ca", "mqtt-cert", "mqtt-key", "mqtt-client-id"] where ConfigurationKey.named(key)?.isGiven(global) == true {
                problem("mqtt.\(key)", "goes with mqtt: (the broker's address)")
            }
            if global.haDiscovery == true { problem("mqtt.ha-discovery", "goes with mqtt: (the broker's address)") }
        }
        if (global.mqttCert == nil) != (global.mqttKey == nil) {
            problem(global.mqttCert == nil ? "mqtt.mqtt-key" : "mqtt.mqtt-cert", "mqtt-cert and mqtt-key go together")
        }
        if let url = global.mqtt, let broker = try? MQTTBrokerList(url).first, !broker.usesTLS {
            for key in ["mqtt-ca", "mqtt-cert", "mqtt-key"] where ConfigurationKey.named(key)?.isGiven(global) == true {
                problem("mqtt.\(key)", "needs an mqtts:// address in mqtt:")
            }
        }
        // HTTP.
        if let http = global.http, let address = WebServerAddress(parsing: http),
           let refusal = address.exposureRefusal(hasToken: global.httpTokenFile != nil || systemdCredential("http-token") != nil,
                                                 insecure: global.httpInsecure == true,
                                                 tokenSetting: "http-token-file", insecureSetting: "http-insecure: true") {
            problem("http.http", refusal)
        }
        if global.http == nil {
            for key in ["http-token-file", "http-insecure", "http-allowed-host", "http-allowed-origin"] where ConfigurationKey.named(key)?.isGiven(global) == true {
                problem("http.\(key)", "goes with http: (the web server's [address:]port)")
            }
        }
        if checksFiles {
            for (key, value) in [("mqtt-password-file", global.mqttPasswordFile), ("mqtt-ca", global.mqttCA), ("mqtt-cert", global.mqttCert),
                                 ("mqtt-key", global.mqttKey), ("http-token-file", global.httpTokenFile)] {
                if let value, let missing = missingFile(value) { problem("\(ConfigurationKey.named(key)?.section.rawValue ?? "").\(key)", missing) }
            }
        }
        // Inputs.
        var inputs: [String: String] = [:]
        for camera in configuration.cameras {
            let at = "cameras.\(camera.name).input"
            if let other = inputs[camera.input], camera.input == "-" || camera.input.hasPrefix("/dev/") || camera.input.isEmpty {
                problem(at, camera.input == "-" ? "only one camera can read standard input (camera \(other) does)"
                        : "camera \(other) reads \(camera.input.isEmpty ? "the first camera" : camera.input) already")
            }
            inputs[camera.input] = inputs[camera.input] ?? camera.name
            if checksFiles, !camera.input.isEmpty, camera.input != "-", !FFmpegInput.isURL(camera.input), let missing = missingFile(camera.input) {
                problem(at, missing)
            }
        }
        return problems
    }

    /// Why `path` names nothing that can be read, or nil.
    static func missingFile(_ path: String) -> String? {
        var info = stat()
        guard path.withPlatformPath({ stat($0, &info) }) == 0 else { return "'\(path.escapedForDisplay)': \(Errno.current)" }
        if (info.st_mode & S_IFMT) == S_IFDIR { return "'\(path.escapedForDisplay)' is a folder, not a file" }
        return nil
    }
}
