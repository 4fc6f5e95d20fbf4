#if canImport(Glibc)
import Glibc
#endif

/// Finds OpenCV's Haar cascades that faces are found with: $LOOKOUT_MODELS, the models/ folder of
/// a source tree (beside a `swift build` binary, or the checkout of the package this library was
/// built from, so a program depending on it finds them too), an installed share folder (beside
/// bin/, then the Debian package's /usr/share/lookout/models), then Debian's opencv-data.
public enum FaceModelLocator {
    public static let cascadeName = "haarcascade_frontalface_default.xml"
    /// The second cascade each face must pass (OpenCV's alt2 frontal face).
    public static let verifierName = "haarcascade_frontalface_alt2.xml"
    /// The profile-face cascade that may confirm a turned face the verifier refused.
    public static let profileName = "haarcascade_profileface.xml"

    public static func defaultCascadePath() -> String { locate(cascadeName) }
    public static func defaultVerifierPath() -> String { locate(verifierName) }
    public static func defaultProfilePath() -> String { locate(profileName) }

    /// The first readable `name` among the places above, else `models/<name>` (which the error
    /// of a detector that cannot open it then names).
    public static func locate(_ name: String) -> String {
        var candidates = [String]()
        if let models = getenv("LOOKOUT_MODELS") {
            // Its bytes as they are (see String(platformPath:)), like every path.
            candidates.append(String(platformPath: UnsafeBufferPointer(start: UnsafeRawPointer(models).assumingMemoryBound(to: UInt8.self),
                                                                     count: strlen(models))) + "/" + name)
        }
        if let executable = executablePath() {
            // .build/<triple>/debug/lookout -> up to the package root; bin/lookout -> share/lookout.
            var folder = executable
            for _ in 0..<5 {
                folder = parent(of: folder)
                candidates.append(folder + "/models/" + name)
                candidates.append(folder + "/share/lookout/models/" + name)
            }
        }
        // This file's package, where the library was built from source: Sources/Lookout/Detection/
        // -> the package root.
        candidates.append(parent(of: parent(of: parent(of: parent(of: #filePath)))) + "/models/" + name)
        // The Debian package's folder, also when /proc is not mounted (a chroot).
        candidates.append("/usr/share/lookout/models/" + name)
        candidates.append("/usr/share/opencv4/haarcascades/" + name)
        return candidates.first { $0.withPlatformPath { access($0, R_OK) } == 0 } ?? "models/" + name
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(platformPath: buffer[0..<length].map { UInt8(bitPattern: $0) })
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
