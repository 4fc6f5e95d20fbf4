/// Where Lookout keeps files (snapshots, clips): the folder the user named (`--snapshots DIR`,
/// `--record DIR`), and for one camera of several the subfolder Lookout makes in it
/// (`DIR/<camera>`). Links in the user's path are followed, as the user chose it; the subfolder
/// is opened without following a link (`O_NOFOLLOW`), so a link planted in its place leads
/// nowhere. Each use opens the folder afresh: a folder removed and made again is found.
public struct Folder: Sendable, Equatable, CustomStringConvertible {
    /// The path the user named.
    public var path: String
    /// The subfolder Lookout makes in it, when there is one.
    public var subfolder: String?

    public init(path: String, subfolder: String? = nil) {
        self.path = path
        self.subfolder = subfolder
    }

    /// The folder's path, for messages and for tools that take paths.
    public var description: String {
        subfolder.map { path + "/" + $0 } ?? path
    }

    /// Opens the folder; with `making`, makes what is missing first (the user's folder, one
    /// level, and the subfolder).
    package func open(making: Bool = false) throws(Errno) -> DirectoryHandle {
        let top = making ? try DirectoryHandle.openMaking(path: path) : try DirectoryHandle.open(path: path)
        guard let subfolder else { return top }
        return try top.subdirectory(named: subfolder, making: making)
    }
}
