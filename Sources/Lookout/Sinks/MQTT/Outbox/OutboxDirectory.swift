#if canImport(Glibc)
import Glibc
#endif

/// The directories an outbox lives in: created 0700 where missing (its events are the cameras'
/// codes and presence), checked writable before anything is started.
public enum OutboxDirectory {
    /// Creates `path` and its missing parents, 0700 each.
    static func make(_ path: String) throws(OutboxError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if prefix.withPlatformPath({ mkdir($0, 0o700) }) != 0, errno != EEXIST {
                throw .cannotCreate(path: prefix, .current)
            }
        }
    }

    /// Creates the state directory `path` (0700) when missing, with its `outbox` folder, and
    /// checks that Lookout may write there.
    public static func prepare(stateDirectory path: String) throws(OutboxError) {
        try make(path)
        let outbox = path + "/outbox"
        if outbox.withPlatformPath({ mkdir($0, 0o700) }) != 0, errno != EEXIST {
            throw .notWritable(path: path, .current)
        }
        guard outbox.withPlatformPath({ access($0, W_OK | X_OK) }) == 0 else { throw .notWritable(path: outbox, .current) }
    }
}
