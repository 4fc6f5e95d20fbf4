import Lookout
#if canImport(Glibc)
import Glibc
#endif

/// Where Lookout keeps what outlives a run (each camera's MQTT outbox): `state-dir` when given;
/// else systemd's `$STATE_DIRECTORY` (a unit's `StateDirectory=`, the first when it names
/// several), else `$XDG_STATE_HOME/lookout`, else `~/.local/state/lookout`.
public enum StateDirectory {
    public static let defaultText = "$STATE_DIRECTORY, else $XDG_STATE_HOME/lookout, else ~/.local/state/lookout"

    /// The state directory for `given` (the key's value) in `environment`.
    public static func resolve(_ given: String?, environment: [String: String]) -> String {
        if let given, !given.isEmpty { return given }
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty { return String(systemd) }
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/lookout" }
        return homeDirectory(environment) + "/.local/state/lookout"
    }

    /// The process's environment, as `resolve` takes it.
    public static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["STATE_DIRECTORY", "XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    private static func homeDirectory(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }
}
